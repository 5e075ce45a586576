/**
 * `npm run bench:throughput`: how many runs per second one worker completes, and the latency a run
 * sees at that rate. For each size N in BENCH_SIZES (default `1000,10000`), one client process keeps
 * BENCH_CONCURRENCY runs in flight (default 50; a closed loop: a run starts when one ends) until N
 * runs are done, against worker processes of the production activities and worker settings
 * (bench/throughput-worker.ts), on one dev server with the project's settings:
 *
 *  - agf.react: a 3-turn agent (three scripted model calls, two `echo` tool calls: bench/react-agent.ts),
 *    started with the input AgentloomClient builds (the agent's view in it, so no loadAgent activity;
 *    BENCH_REACT_START=load starts it with only `bundle` + `agent_id`, so each run loads its agent);
 *  - baseline: a hand-written workflow making the same activity calls (bench/baseline-workflow.ts).
 *
 * Each workload runs with one worker, then (for the sizes in BENCH_TWO_WORKERS, default the first
 * size) with two worker processes on the same task queue, to show the work spreading. Prints a row per
 * phase (runs/s, p50/p99 run latency, peak worker RSS, worker and dev-server CPU ms per run, load
 * average; BENCH_CPU_PROF=<dir> has each worker write a V8 CPU profile there) and `ratio:` lines measured in
 * this same run: agf.react throughput / baseline throughput, agf.react's peak worker RSS at the largest
 * size / at the smallest, and two workers / one worker.
 *
 * The phases share one server, so a later phase runs on a database holding the earlier phases' runs.
 * agf.react goes first unless BENCH_FIRST=baseline: run both orders to see what the order is worth.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as readline from 'readline';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, PROJECT_ROOT } from '../src/platform/temporal-dev-server';
import { FileBlobStore, storeBundle } from '../src/activities/blob-store';
import type { CompiledBundle } from '../src/compiled/types';
import { withAgentView } from '../src/runtime/agent-view-build';
import { benchAgent } from './react-agent';

/** Tool-calling turns before the answer: three model calls, two tool calls. */
const TOOL_TURNS = 2;
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number).filter((n) => n > 0);
const TWO_WORKERS = (process.env.BENCH_TWO_WORKERS ?? String(SIZES[0])).split(',').map(Number).filter((n) => n > 0);
const CONCURRENCY = Math.max(1, Number(process.env.BENCH_CONCURRENCY ?? 50));

type Workload = 'agf.react' | 'baseline';

interface Phase {
  workload: Workload;
  runs: number;
  workers: number;
  wallS: number;
  runsPerS: number;
  p50: number;
  p99: number;
  rssMiB: number;
  /** CPU ms per run: the worker processes', the dev server's (user + system, from /proc). */
  workerCpuMs: number;
  serverCpuMs: number;
  load: string;
}

/** The q-quantile of sorted values (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Peak resident memory (VmHWM) of a process, in MiB, from /proc. */
function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface WorkerChild { pid: number; child: ChildProcess; stop(): Promise<void> }

async function startWorker(env: NodeJS.ProcessEnv): Promise<WorkerChild> {
  // BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it exits (node --cpu-prof).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const child = spawn(process.execPath, [...prof, require.resolve('ts-node/dist/bin.js'), '--transpile-only', path.join(__dirname, 'throughput-worker.ts')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = await new Promise<number>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (l) => {
      const m = /^READY (\d+)/.exec(l);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`bench worker exited (${code}) before it was ready`)));
  });
  return {
    pid,
    child,
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-throughput-'));
  const server = await startDevServer({ headless: true, fastSqlite: true, dbFile: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log') });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const storeDir = path.join(tmp, 'store');
  const store = new FileBlobStore(storeDir);
  process.stderr.write('bundling workflows…\n');
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflows.ts'), logger: new DefaultLogger('ERROR') });
  const bundlePath = path.join(tmp, 'bundle.js');
  fs.writeFileSync(bundlePath, code);
  const agent = benchAgent(TOOL_TURNS);
  const compiled = { format: 'agentloom.compiled/v1', root: agent.agent_id, agents: { [agent.agent_id]: agent }, content_hash: 'throughput' } as CompiledBundle;
  const bundle = await storeBundle(store, compiled);
  // The start input AgentloomClient builds: the agent's view in it (withAgentView, the client's own code), so no run loads the agent.
  // BENCH_REACT_START=load: only bundle + agent_id, as a raw Temporal client starts a run (it loads its agent first).
  const loadFirst = process.env.BENCH_REACT_START === 'load';
  const reactInput = loadFirst ? { bundle, agent_id: agent.agent_id, input: 'go' } : withAgentView({ bundle, agent_id: agent.agent_id, input: 'go' }, compiled, 'agfReactWorkflow');

  const phase = async (workload: Workload, runs: number, workers: number): Promise<Phase> => {
    const taskQueue = `throughput-${workload.replace('.', '-')}-${runs}-${workers}-${Date.now()}`;
    const env = { BENCH_ADDRESS: server.address, BENCH_TASK_QUEUE: taskQueue, BENCH_BUNDLE: bundlePath, BENCH_STORE_DIR: storeDir, BENCH_TURNS: String(TOOL_TURNS) };
    const procs = await Promise.all(Array.from({ length: workers }, () => startWorker(env)));
    const start = (id: string) =>
      workload === 'agf.react'
        ? client.workflow.execute('agfReactWorkflow', { taskQueue, workflowId: id, args: [reactInput] })
        : client.workflow.execute('benchBaselineWorkflow', { taskQueue, workflowId: id, args: ['go'] });
    try {
      // Warm-up: the workers' caches and the server, not measured.
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, 20) }, (_, i) => start(`${taskQueue}-warm-${i}`)));
      const latencies: number[] = [];
      let next = 0;
      const cpu0 = { workers: procs.reduce((a, p) => a + cpuMs(p.pid), 0), server: cpuMs(server.pid) };
      const t0 = Date.now();
      const lane = async (): Promise<void> => {
        while (next < runs) {
          const i = next++;
          const s = Date.now();
          await start(`${taskQueue}-${i}`);
          latencies.push(Date.now() - s);
          if (latencies.length % 1000 === 0) process.stderr.write(`  ${workload} x${workers}: ${latencies.length}/${runs}\n`);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, runs) }, lane));
      const wallS = (Date.now() - t0) / 1000;
      const cpu1 = { workers: procs.reduce((a, p) => a + cpuMs(p.pid), 0), server: cpuMs(server.pid) };
      latencies.sort((a, b) => a - b);
      return {
        workload, runs, workers, wallS,
        runsPerS: runs / wallS,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        rssMiB: Math.max(...procs.map((p) => peakRssMiB(p.pid))),
        workerCpuMs: (cpu1.workers - cpu0.workers) / runs,
        serverCpuMs: (cpu1.server - cpu0.server) / runs,
        load: os.loadavg()[0].toFixed(1),
      };
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
    }
  };

  const phases: Phase[] = [];
  const order: Workload[] = process.env.BENCH_FIRST === 'baseline' ? ['baseline', 'agf.react'] : ['agf.react', 'baseline'];
  try {
    for (const n of SIZES) {
      for (const w of order) phases.push(await phase(w, n, 1));
      if (TWO_WORKERS.includes(n)) for (const w of order) phases.push(await phase(w, n, 2));
    }
  } finally {
    await connection.close();
    await server.stop();
  }
  console.log(`bench:throughput — a 3-turn agent with one tool (3 model calls, 2 tool calls), ${CONCURRENCY} runs in flight from one client; ${os.cpus().length} cores; agf.react started ${loadFirst ? 'with bundle + agent_id (loadAgent first)' : 'with the agent view in its input (as AgentloomClient starts it)'}; ${order[0]} first on the server`);
  console.table(
    phases.map((p) => ({
      workload: p.workload, runs: p.runs, workers: p.workers, 'wall s': +p.wallS.toFixed(1), 'runs/s': +p.runsPerS.toFixed(1),
      'p50 ms': p.p50, 'p99 ms': p.p99, 'peak worker RSS MiB': Math.round(p.rssMiB),
      'worker CPU ms/run': +p.workerCpuMs.toFixed(1), 'server CPU ms/run': +p.serverCpuMs.toFixed(1), 'load (1 min)': p.load,
    })),
  );
  const find = (w: Workload, n: number, k: number) => phases.find((p) => p.workload === w && p.runs === n && p.workers === k);
  for (const n of SIZES) {
    for (const k of [1, 2]) {
      const a = find('agf.react', n, k);
      const b = find('baseline', n, k);
      if (a && b) console.log(`ratio: ${(a.runsPerS / b.runsPerS).toFixed(2)}x throughput, agf.react / hand-written (${n} runs, ${k} worker${k > 1 ? 's' : ''}; target >= 0.8x)`);
    }
  }
  const small = find('agf.react', SIZES[0], 1);
  const large = find('agf.react', SIZES[SIZES.length - 1], 1);
  if (small && large && small !== large) console.log(`ratio: ${(large.rssMiB / small.rssMiB).toFixed(2)}x peak worker RSS, agf.react at ${large.runs} / at ${small.runs} runs (target <= 1.3x)`);
  for (const n of TWO_WORKERS) {
    const one = find('agf.react', n, 1);
    const two = find('agf.react', n, 2);
    if (one && two) console.log(`ratio: ${(two.runsPerS / one.runsPerS).toFixed(2)}x throughput, two workers / one (agf.react, ${n} runs, on ${os.cpus().length} cores)`);
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
