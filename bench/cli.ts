/**
 * `npm run bench:cli`: how soon each `loom` command that does not wait on a run answers, run as a
 * user runs it — `node bin/loom.js …` on the build bin/loom.js picks: the CLI's one-file build
 * dist/client.bundle.js with its code cache (in a folder of this run, written by each command's first
 * run), built first with dist/ when missing or older than src/. Per command, the best of BENCH_REPEATS (default 5) wall times from
 * spawn to the first byte on stdout and to the exit, beside `node -e ''` (and a node that writes one
 * byte), with the CPU time each process used (user + system: what the load of a shared machine
 * changes least) and the 1-minute load average; the `ratio:` line is the worst command's first byte over
 * the 300 ms target. `list`, `status` and `inbox` talk to an embedded Temporal dev server; `status`
 * reads a run that has finished (one scripted model turn, on a worker in this process).
 *
 * BENCH_CLI_RTT_MS=N puts a proxy on 127.0.0.1 between the CLI and the server that holds every chunk
 * N/2 ms each way: a cluster N ms away, where each round trip a command makes shows in its time.
 *
 * BENCH_CLI_BASE=DIR also times DIR/bin/loom.js (another checkout with its dist/ built, e.g. the
 * commit before a change), each of its runs right after the same run of this checkout, so both sides
 * see the same load: the comparison a shared machine can make.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { Worker } from '@temporalio/worker';
import { storeBundle } from '../src/activities/blob-store';
import { PROJECT_ROOT } from '../src/platform/temporal-dev-server';
import type { RunAgentInput } from '../src/shared/contract';
import { workflowTypeFor } from '../src/shared/dispatch';
import { agent, bundle } from '../test/orchestration/builders';
import { loadAvg, startBenchEnv } from './harness';

const TARGET_MS = 300;
const LOOM = path.join(PROJECT_ROOT, 'bin', 'loom.js');
const DIST = path.join(PROJECT_ROOT, 'dist', 'client.js');
const BUNDLE = path.join(PROJECT_ROOT, 'dist', 'client.bundle.js');
const DEMO = path.join(PROJECT_ROOT, 'examples', 'demo');

/** The newest .ts under `dir` (bin/loom.js's staleness rule). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

const fresh = (file: string) => fs.existsSync(file) && fs.statSync(file).mtimeMs >= newestSource(path.join(PROJECT_ROOT, 'src'));

/** dist/ (tsc: the files the bundle finds beside it) and the bundle, each built when missing or older than src/. */
function ensureDist(): void {
  if (!fresh(DIST)) {
    process.stderr.write('building dist/ (tsc -p tsconfig.build.json)…\n');
    const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--declaration', 'false'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('the build failed');
  }
  if (!fresh(BUNDLE)) {
    process.stderr.write('building dist/client.bundle.js (scripts/build-cli-bundle.ts)…\n');
    const r = spawnSync(process.execPath, [require.resolve('ts-node/dist/bin'), '--transpile-only', path.join(PROJECT_ROOT, 'scripts', 'build-cli-bundle.ts')], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('the bundle build failed');
  }
}

/** A TCP proxy on 127.0.0.1 to `target` that delays every chunk by `oneWayMs` in each direction (order kept). */
async function startDelayProxy(target: string, oneWayMs: number): Promise<{ address: string; close(): Promise<void> }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const pipe = (from: net.Socket, to: net.Socket) => {
    from.on('data', (d) => { setTimeout(() => to.write(d), oneWayMs); });
    from.on('end', () => { setTimeout(() => to.end(), oneWayMs); });
    from.on('error', () => to.destroy());
  };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); }
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address() as net.AddressInfo;
  return { address: `127.0.0.1:${p}`, close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }) };
}

interface Timing { firstByteMs: number; exitMs: number; cpuMs: number; code: number | null; stderr: string }

const CPU_PRELOAD = path.join(__dirname, 'cli-cpu.js');

function once(args: string[], env: NodeJS.ProcessEnv): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    const child = spawn(process.execPath, ['-r', CPU_PRELOAD, ...args], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let cpu = '';
    (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (d: string) => { cpu += d; });
    let firstByteMs = NaN;
    let stderr = '';
    child.stdout!.once('data', () => { firstByteMs = ms(); });
    child.stdout!.resume();
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.once('error', reject);
    child.once('close', (code) => resolve({ firstByteMs, exitMs: ms(), cpuMs: Number(cpu), code, stderr }));
  });
}

interface Best { firstByteMs: number; exitMs: number; cpuMs: number }

function bestOf(args: string[], runs: Timing[]): Best {
  const bad = runs.find((r) => r.code !== 0 || r.stderr.includes('dist/ is older'));
  if (bad) throw new Error(`node ${args.join(' ')} exited ${bad.code}: ${bad.stderr.trim()}`);
  return { firstByteMs: Math.min(...runs.map((r) => r.firstByteMs)), exitMs: Math.min(...runs.map((r) => r.exitMs)), cpuMs: Math.min(...runs.map((r) => r.cpuMs)) };
}

async function best(args: string[], env: NodeJS.ProcessEnv, repeats: number): Promise<Best> {
  const runs: Timing[] = [];
  for (let i = 0; i < repeats; i++) runs.push(await once(args, env));
  return bestOf(args, runs);
}

/** `args` run by this checkout's bin/loom.js and by `baseLoom`, alternately: the best of each side. */
async function bestBeside(args: string[], baseLoom: string, env: NodeJS.ProcessEnv, repeats: number): Promise<{ mine: Best; base: Best }> {
  const mine: Timing[] = [];
  const base: Timing[] = [];
  for (let i = 0; i < repeats; i++) {
    mine.push(await once([LOOM, ...args], env));
    base.push(await once([baseLoom, ...args], env));
  }
  return { mine: bestOf([LOOM, ...args], mine), base: bestOf([baseLoom, ...args], base) };
}

async function main(): Promise<void> {
  const repeats = Number(process.env.BENCH_REPEATS ?? 5);
  ensureDist();
  const env = await startBenchEnv('cli');
  const taskQueue = 'bench-cli';
  const worker = await Worker.create({ connection: env.native, taskQueue, workflowBundle: env.loomWorkflows, activities: env.createActivities() });
  const running = worker.run();
  let proxy: Awaited<ReturnType<typeof startDelayProxy>> | undefined;
  try {
    // A run that has finished, for `loom status`.
    const b = bundle('cli-bench', [agent({ id: 'cli-bench' })]);
    const input: RunAgentInput = { bundle: await storeBundle(env.store, b), agent_id: b.root, input: 'hello' };
    const handle = await env.client.workflow.start(workflowTypeFor(b.agents[b.root])!, { taskQueue, workflowId: `cli-bench-${Date.now()}`, args: [input] });
    await handle.result();
    const rttMs = Number(process.env.BENCH_CLI_RTT_MS ?? 0);
    proxy = rttMs > 0 ? await startDelayProxy(env.address, rttMs / 2) : undefined;
    const cliEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, HOME: process.env.HOME, USER: process.env.USER, LANG: 'C.UTF-8',
      TEMPORAL_ADDRESS: proxy?.address ?? env.address, LOOM_HOME: path.join(env.dir, 'home'), LOOM_STORE_DIR: path.join(env.dir, 'store'), LOOM_TASK_QUEUE: taskQueue,
      // The bundle's code cache, fresh for this run (each command's first run writes it), as a user's ~/.cache holds it.
      LOOM_COMPILE_CACHE_DIR: path.join(env.dir, 'compile-cache'),
    };
    const commands: [string, string[]][] = [
      ['--help', ['--help']],
      ['--version', ['--version']],
      ['validate', ['validate', '--registry', DEMO]],
      ['compile', ['compile', 'trip-planner', '--registry', DEMO]],
      ['list', ['list']],
      ['status (finished run)', ['status', handle.workflowId]],
      ['inbox', ['inbox']],
      ['completion bash', ['completion', 'bash']],
    ];
    const rows: string[] = [];
    const baseDir = process.env.BENCH_CLI_BASE ? path.resolve(process.env.BENCH_CLI_BASE) : undefined;
    const baseLoom = baseDir && path.join(baseDir, 'bin', 'loom.js');
    if (baseDir && !fs.existsSync(path.join(baseDir, 'dist', 'client.js'))) throw new Error(`BENCH_CLI_BASE: ${baseDir} has no dist/client.js (build it there first)`);
    const dash = baseLoom ? ' – | – |' : '';
    const node = await best(['-e', ''], cliEnv, repeats);
    const nodeWrite = await best(['-e', 'process.stdout.write("x")'], cliEnv, repeats);
    rows.push(`| \`node -e ''\` | – | ${node.exitMs.toFixed(0)} | ${node.cpuMs.toFixed(0)} |${dash} ${loadAvg()} |`);
    rows.push(`| \`node -e 'process.stdout.write("x")'\` | ${nodeWrite.firstByteMs.toFixed(0)} | ${nodeWrite.exitMs.toFixed(0)} | ${nodeWrite.cpuMs.toFixed(0)} |${dash} ${loadAvg()} |`);
    let worst = { name: '', ms: 0 };
    for (const [name, args] of commands) {
      const both = baseLoom ? await bestBeside(args, baseLoom, cliEnv, repeats) : undefined;
      const t = both?.mine ?? await best([LOOM, ...args], cliEnv, repeats);
      if (t.firstByteMs > worst.ms) worst = { name, ms: t.firstByteMs };
      const base = both ? ` ${both.base.firstByteMs.toFixed(0)} | ${both.base.cpuMs.toFixed(0)} |` : '';
      rows.push(`| \`loom ${name}\` | ${t.firstByteMs.toFixed(0)} | ${t.exitMs.toFixed(0)} | ${t.cpuMs.toFixed(0)} |${base} ${loadAvg()} |`);
    }
    process.stdout.write(`bench:cli — best of ${repeats}, ms from spawn (${fresh(BUNDLE) ? 'the one-file build dist/client.bundle.js with its code cache' : 'compiled dist/'}, ${os.cpus().length} cores)${rttMs > 0 ? `, the server ${rttMs} ms round trip away (BENCH_CLI_RTT_MS)` : ''}${baseDir ? `, beside ${baseDir}` : ''}\n\n`);
    process.stdout.write(baseLoom
      ? '| command | first stdout byte ms | exit ms | CPU ms (user+sys) | base first byte ms | base CPU ms | load (1 min) |\n|---|---:|---:|---:|---:|---:|---:|\n'
      : '| command | first stdout byte ms | exit ms | CPU ms (user+sys) | load (1 min) |\n|---|---:|---:|---:|---:|\n');
    process.stdout.write(rows.join('\n') + '\n\n');
    process.stdout.write(`ratio: ${(worst.ms / TARGET_MS).toFixed(2)} (worst first byte: loom ${worst.name}, ${worst.ms.toFixed(0)} ms / ${TARGET_MS} ms)\n`);
  } finally {
    await proxy?.close();
    worker.shutdown();
    await running;
    await env.close();
    fs.rmSync(env.dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench:cli: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
