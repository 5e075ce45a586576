/**
 * `npm run bench:runtime`: an agf.react run with a zero-latency scripted model doing N turns with
 * one tool call each, against a hand-written minimal workflow (bench/baseline-workflow.ts)
 * making the same activity calls, on the same worker and server. Prints history events per turn,
 * history bytes per turn (1st vs 100th), wall time per turn and the ratios to the baseline, and
 * where each turn's time goes (from the history's event timestamps: workflow tasks waiting to
 * start, running, activities waiting to start, running).
 *
 * Each profile in BENCH_PROFILES (default `before,project,plugin`) starts its own dev server and
 * worker in this same run, and runs the baseline and agf.react on that same worker: `before` = the
 * dev server without the project's dynamic config and a worker with the SDK's defaults (the
 * settings before the turn-latency work); `project` = the dev server and worker settings the
 * project uses (src/platform/temporal-dev-server.ts DEV_SERVER_TUNING, src/worker/create-worker.ts
 * WORKER_TUNING); `plugin` = the same, with the worker built as createAgentloomWorker builds it
 * (AgentloomPlugin: its data converter, the outage and tracing interceptors, the tracing sinks and
 * workflow interceptor module). BENCH_DYNAMIC_CONFIG and BENCH_WORKER (JSON) add dynamic config
 * values and worker options to `project` and `plugin`, to try a setting before adopting it.
 * BENCH_TURNS (default 100) sets N; BENCH_REPEAT
 * (default 2) measured runs of each workflow per profile (the best is reported, after a warm-up);
 * BENCH_DUMP=dir writes the measured histories there as JSON.
 *
 * Streaming (seed 003; BENCH_STREAM=0 skips it): on the project settings, a model (the local
 * OpenAI-compatible test server) emits 10 independent tool calls over a slow stream (BENCH_STREAM_GAP_MS,
 * default 100 ms before each call) and each call takes BENCH_STREAM_TOOL_MS (default 100 ms): wall
 * time of the run (runtime.execution_loop dependencies) when each call is dispatched as it
 * completes in the stream vs when the same calls arrive all at once after the same total time
 * (waiting for the whole reply), for independent calls and for a chain (each `_dependsOn` the one
 * before), measured alternately in the same run.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime, Worker, WorkerOptions, bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, PROJECT_ROOT, DEV_SERVER_TUNING } from '../src/platform/temporal-dev-server';
import { WORKER_TUNING } from '../src/worker/create-worker';
import { AgentloomPlugin } from '../src/plugin/agentloom-plugin';
import { TRACING_WORKFLOW_MODULE } from '../src/telemetry/tracing';
import { FileBlobStore, storeBundle } from '../src/activities/blob-store';
import { createActivities } from '../src/activities';
import type { CompiledBundle } from '../src/compiled/types';
import { eventBytes } from '../src/shared/history-size';
import { startFakeOpenAI } from '../test/helpers/openai-server';
import { baselineActivities, benchAgent } from './react-agent';

const N = Number(process.env.BENCH_TURNS ?? 100);


/** Events and bytes per turn, a turn starting at each scheduled `modelActivity`. */
function perTurn(h: History, modelActivity: string): { events: number[]; bytes: number[]; total: number; totalBytes: number } {
  const events: number[] = [];
  const bytes: number[] = [];
  let total = 0;
  let totalBytes = 0;
  for (const e of h.events ?? []) {
    total += 1;
    const b = eventBytes(e);
    totalBytes += b;
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === modelActivity) {
      events.push(0);
      bytes.push(0);
    }
    if (events.length) {
      events[events.length - 1] += 1;
      bytes[bytes.length - 1] += b;
    }
  }
  return { events, bytes, total, totalBytes };
}

/** Milliseconds of a history event's timestamp. */
function ms(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!t) return NaN;
  const sec = t.seconds as { toNumber?: () => number } | number | string | undefined;
  const whole = typeof sec === 'object' && sec?.toNumber ? sec.toNumber() : Number(sec ?? 0);
  return whole * 1000 + (t.nanos ?? 0) / 1e6;
}

/**
 * Where the time of a run goes, per model turn (ms): workflow tasks waiting to start
 * (WorkflowTaskScheduled -> Started) and running (Started -> Completed), activities waiting to
 * start (Scheduled -> Started) and running (Started -> Completed), the rest (between one task's
 * end and the next one's scheduling), and the whole run.
 */
function phases(h: History, turns: number): Record<string, number> {
  const evs = h.events ?? [];
  const at = new Map<string, number>();
  for (const e of evs) at.set(String(e.eventId), ms(e.eventTime as never));
  let wftWait = 0, wftRun = 0, actWait = 0, actRun = 0, wfts = 0;
  for (const e of evs) {
    const t = ms(e.eventTime as never);
    if (e.workflowTaskStartedEventAttributes) { wftWait += t - (at.get(String(e.workflowTaskStartedEventAttributes.scheduledEventId)) ?? t); wfts++; }
    if (e.workflowTaskCompletedEventAttributes) wftRun += t - (at.get(String(e.workflowTaskCompletedEventAttributes.startedEventId)) ?? t);
    if (e.activityTaskStartedEventAttributes) actWait += t - (at.get(String(e.activityTaskStartedEventAttributes.scheduledEventId)) ?? t);
    if (e.activityTaskCompletedEventAttributes) actRun += t - (at.get(String(e.activityTaskCompletedEventAttributes.startedEventId)) ?? t);
  }
  const total = ms(evs[evs.length - 1]?.eventTime as never) - ms(evs[0]?.eventTime as never);
  const per = (x: number) => +(x / turns).toFixed(2);
  return {
    'wf tasks/turn': per(wfts),
    'wf task wait': per(wftWait),
    'wf task run': per(wftRun),
    'activity wait': per(actWait),
    'activity run': per(actRun),
    other: per(total - wftWait - wftRun - actWait - actRun),
    'history ms/turn': per(total),
  };
}

interface Profile {
  name: string;
  dynamicConfig: Record<string, string | number | boolean>;
  worker: Partial<WorkerOptions>;
  /** Build the worker through AgentloomPlugin, as createAgentloomWorker does. */
  plugin?: boolean;
}

const projectConfig = { ...DEV_SERVER_TUNING, ...JSON.parse(process.env.BENCH_DYNAMIC_CONFIG ?? '{}') };
const projectWorker: Partial<WorkerOptions> = { ...WORKER_TUNING, ...JSON.parse(process.env.BENCH_WORKER ?? '{}') };
const PROFILES: Record<string, Profile> = {
  before: { name: 'before', dynamicConfig: {}, worker: {} },
  project: { name: 'project', dynamicConfig: projectConfig, worker: projectWorker },
  plugin: { name: 'plugin', dynamicConfig: projectConfig, worker: projectWorker, plugin: true },
};

/** The bench's workflows bundled once, and once more with the tracing workflow interceptor module the plugin's worker runs. */
const bundles: Record<'plain' | 'plugin', Promise<string> | undefined> = { plain: undefined, plugin: undefined };
function benchBundle(kind: 'plain' | 'plugin'): Promise<string> {
  return (bundles[kind] ??= bundleWorkflowCode({
    workflowsPath: path.join(PROJECT_ROOT, 'bench', 'workflows.ts'),
    workflowInterceptorModules: kind === 'plugin' ? [TRACING_WORKFLOW_MODULE] : [],
    logger: new DefaultLogger('WARN'),
  }).then((b) => b.code));
}

async function runProfile(profile: Profile): Promise<{ rows: Record<string, unknown>[]; where: Record<string, unknown>[]; ratio: string }> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  const server = await startDevServer({
    headless: true, fastSqlite: true, dbFile: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log'),
    // `before` starts the server without the project's tuning.
    ...(profile.name === 'before' ? { tuning: false } : {}), dynamicConfig: profile.dynamicConfig,
  });
  const address = server.address;
  const store = new FileBlobStore(path.join(tmp, 'store'));
  const nc = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `bench-${Date.now()}`;
  const code = await benchBundle(profile.plugin ? 'plugin' : 'plain');
  // The plugin's worker: createAgentloomWorker's options (src/worker/create-worker.ts) with the bench's bundle and store.
  const worker = profile.plugin
    ? await Worker.create({
        connection: nc,
        taskQueue,
        workflowBundle: { code },
        plugins: [new AgentloomPlugin({ store, activities: baselineActivities(N) })],
        maxConcurrentActivityTaskExecutions: 100,
        maxConcurrentWorkflowTaskExecutions: 40,
        shutdownGraceTime: '10s',
        ...profile.worker,
      })
    : await Worker.create({
        connection: nc,
        taskQueue,
        workflowBundle: { code },
        activities: { ...createActivities({ store }), ...baselineActivities(N) },
        ...profile.worker,
      });
  const bundleRef = await storeBundle(store, { format: 'agentloom.compiled/v1', root: 'bench-react', agents: { 'bench-react': benchAgent(N) }, content_hash: 'b' } as CompiledBundle);

  const runReact = async (id: string) => {
    const t0 = Date.now();
    const h = await client.workflow.start('agfReactWorkflow', { taskQueue, workflowId: id, args: [{ bundle: bundleRef, agent_id: 'bench-react', input: 'go' }] });
    await h.result();
    return { ms: Date.now() - t0, history: await h.fetchHistory() };
  };
  const runBaseline = async (id: string) => {
    const t0 = Date.now();
    const h = await client.workflow.start('benchBaselineWorkflow', { taskQueue, workflowId: id, args: ['go'] });
    await h.result();
    return { ms: Date.now() - t0, history: await h.fetchHistory() };
  };
  const repeat = Math.max(1, Number(process.env.BENCH_REPEAT ?? 2));
  const best = <T extends { ms: number }>(xs: T[]): T => xs.reduce((a, b) => (b.ms < a.ms ? b : a));
  let out!: { rows: Record<string, unknown>[]; where: Record<string, unknown>[]; ratio: string };
  try {
    await worker.runUntil(async () => {
      // Warm-up (worker caches, server), then alternate measured runs.
      await runBaseline(`baseline-warm-${Date.now()}`);
      await runReact(`react-warm-${Date.now()}`);
      const bases: Awaited<ReturnType<typeof runBaseline>>[] = [];
      const reacts: Awaited<ReturnType<typeof runReact>>[] = [];
      for (let k = 0; k < repeat; k++) {
        bases.push(await runBaseline(`baseline-${k}-${Date.now()}`));
        reacts.push(await runReact(`react-${k}-${Date.now()}`));
      }
      const base = best(bases);
      const react = best(reacts);
      // BENCH_DUMP=dir: the measured histories as JSON, for a closer look at the timestamps.
      if (process.env.BENCH_DUMP) {
        fs.mkdirSync(process.env.BENCH_DUMP, { recursive: true });
        for (const [what, h] of [['baseline', base.history], ['react', react.history]] as const) {
          fs.writeFileSync(path.join(process.env.BENCH_DUMP, `${profile.name}-${what}.json`), JSON.stringify(historyToJSON(h)));
        }
      }
      const b = perTurn(base.history, 'baselineModel');
      const r = perTurn(react.history, 'modelTurn');
      const turnIdx = Math.min(99, N - 1);
      const load = os.loadavg()[0].toFixed(1);
      const row = (name: string, x: typeof b, wall: number) => ({
        settings: profile.name,
        run: name,
        turns: x.events.length - 1,
        'events total': x.total,
        'events/turn': +(x.total / N).toFixed(2),
        'bytes turn 1': x.bytes[0],
        [`bytes turn ${turnIdx + 1}`]: x.bytes[turnIdx],
        'bytes total': x.totalBytes,
        'ms/turn': +(wall / N).toFixed(2),
        'load (1 min)': load,
      });
      out = {
        rows: [row('baseline', b, base.ms), row('agf.react', r, react.ms)],
        where: [
          { settings: profile.name, run: 'baseline', ...phases(base.history, N) },
          { settings: profile.name, run: 'agf.react', ...phases(react.history, N) },
        ],
        ratio:
          `${profile.name}: agf.react / baseline: events/turn ${(r.total / b.total).toFixed(2)}x, wall time ${(react.ms / base.ms).toFixed(2)}x, ` +
          `bytes turn ${turnIdx + 1} ${(r.bytes[turnIdx] / b.bytes[turnIdx]).toFixed(2)}x, total bytes ${(r.totalBytes / b.totalBytes).toFixed(2)}x; ` +
          `growth (turn ${turnIdx + 1} / turn 1): agf.react ${(r.bytes[turnIdx] / r.bytes[0]).toFixed(2)}x (turn 2 -> ${turnIdx + 1}: ${(r.bytes[turnIdx] / r.bytes[1]).toFixed(2)}x), baseline ${(b.bytes[turnIdx] / b.bytes[0]).toFixed(2)}x`,
      };
    });
  } finally {
    await connection.close();
    await nc.close();
    await server.stop();
  }
  return out;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const names = (process.env.BENCH_PROFILES ?? 'before,project,plugin').split(',').map((x) => x.trim()).filter(Boolean);
  const rows: Record<string, unknown>[] = [];
  const where: Record<string, unknown>[] = [];
  const ratios: string[] = [];
  for (const name of names) {
    const profile = PROFILES[name];
    if (!profile) throw new Error(`unknown profile '${name}' (BENCH_PROFILES: ${Object.keys(PROFILES).join(', ')})`);
    process.stderr.write(`profile ${name}: dynamic config ${JSON.stringify(profile.dynamicConfig)}, worker ${JSON.stringify(profile.worker)}\n`);
    const out = await runProfile(profile);
    rows.push(...out.rows);
    where.push(...out.where);
    ratios.push(out.ratio);
  }
  console.log(`${N} turns, one tool call each; load average now ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (${os.cpus().length} cores)`);
  console.table(rows);
  console.log('where a turn goes (ms per turn, from history timestamps):');
  console.table(where);
  for (const r of ratios) console.log(r);
  if (process.env.BENCH_STREAM !== '0') await streamingBench(await benchBundle('plain'));
}

/** Dispatch-on-arrival vs waiting for the whole reply (see the header). */
async function streamingBench(code: string): Promise<void> {
  const calls = 10;
  const gap = Number(process.env.BENCH_STREAM_GAP_MS ?? 100);
  const toolMs = Number(process.env.BENCH_STREAM_TOOL_MS ?? 100);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-stream-'));
  const server = await startDevServer({ headless: true, fastSqlite: true, dbFile: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log'), dynamicConfig: PROFILES.project.dynamicConfig });
  const srv = await startFakeOpenAI();
  const store = new FileBlobStore(path.join(tmp, 'store'));
  const nc = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = `bench-stream-${Date.now()}`;
  const worker = await Worker.create({ connection: nc, taskQueue, workflowBundle: { code }, activities: createActivities({ store }), ...PROFILES.project.worker });
  const a = benchAgent(1);
  a.agent_id = 'bench-stream';
  a.runtime = { ...a.runtime, execution_loop: 'dependencies', model: { model_id: 'bench-oa', version: '1', status: 'active', provider: 'openai', openai: { base_url: srv.baseUrl, model: 'bench', request_timeout_seconds: 60 }, supports_tools: true } };
  a.tools = { tool_choice: 'auto', refs: [{ ...a.tools.refs[0], tool_id: 'sleep', description: 'sleep', input_schema: { type: 'object', properties: { ms: { type: 'number' } } }, builtin: { name: 'sleep' } }] };
  const ref = await storeBundle(store, { format: 'agentloom.compiled/v1', root: a.agent_id, agents: { [a.agent_id]: a }, content_hash: 's' } as CompiledBundle);
  const plans = {
    independent: Array.from({ length: calls }, (_, i) => ({ id: `s${i}`, name: 'sleep', arguments: { ms: toolMs } })),
    // each call depends on the one before it (_dependsOn): a chain the stream can feed one link at a time
    chain: Array.from({ length: calls }, (_, i) => ({ id: `s${i}`, name: 'sleep', arguments: { ms: toolMs, ...(i ? { _dependsOn: [`s${i - 1}`] } : {}) } })),
  };
  const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  type Mode = 'arrival' | 'whole';
  const run = async (plan: keyof typeof plans, mode: Mode): Promise<number> => {
    // the same stream and total time: a gap before each call, or the whole gap first and then every call at once
    const before_call = (i: number) => (mode === 'arrival' ? wait(gap) : i === 0 ? wait(gap * calls) : Promise.resolve());
    srv.enqueue({ kind: 'reply', content: null, tool_calls: plans[plan], stream: { before_call } }, { kind: 'reply', content: 'done' });
    const t0 = Date.now();
    await client.workflow.execute('agfReactWorkflow', { taskQueue, workflowId: `stream-${plan}-${mode}-${Date.now()}`, args: [{ bundle: ref, agent_id: a.agent_id, input: 'go' }] });
    return Date.now() - t0;
  };
  const repeat = Math.max(1, Number(process.env.BENCH_REPEAT ?? 2)) + 1;
  const times: Record<string, number[]> = {};
  try {
    await worker.runUntil(async () => {
      await run('independent', 'whole');
      for (const plan of Object.keys(plans) as (keyof typeof plans)[]) {
        for (let k = 0; k < repeat; k++) {
          for (const mode of ['whole', 'arrival'] as Mode[]) (times[`${plan}/${mode}`] ??= []).push(await run(plan, mode));
        }
      }
    });
  } finally {
    await srv.close();
    await connection.close();
    await nc.close();
    await server.stop();
  }
  const best = (k: string) => Math.min(...times[k]);
  console.log(`streaming: ${calls} calls, ${gap} ms apart in the stream (${gap * calls} ms in all), ${toolMs} ms each; load ${os.loadavg()[0].toFixed(1)}`);
  console.table(
    Object.keys(plans).flatMap((plan) => [
      { calls: plan, dispatch: 'when the whole reply has arrived', 'best ms': best(`${plan}/whole`), 'all ms': times[`${plan}/whole`].join(' ') },
      { calls: plan, dispatch: 'as each call arrives', 'best ms': best(`${plan}/arrival`), 'all ms': times[`${plan}/arrival`].join(' ') },
    ]),
  );
  for (const plan of Object.keys(plans)) console.log(`streaming (${plan}): dispatch-on-arrival / whole reply: ${(best(`${plan}/arrival`) / best(`${plan}/whole`)).toFixed(2)}x wall time`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
