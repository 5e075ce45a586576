/**
 * What the dev-server benchmarks share: an embedded Temporal dev server in a temp folder, a store
 * in that folder (LOOM_STORE_DIR, so the CLI functions a bench calls read the same one), client and
 * worker connections, the bundled Agentloom workflows, a zero-latency member agent, and the history
 * measurements the benches print. Each bench keeps only what it measures.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, PROJECT_ROOT } from '../src/platform/temporal-dev-server';
import { FileBlobStore } from '../src/activities/blob-store';
import type { CompiledAgent, JsonValue } from '../src/compiled/types';

/** Temporal warns at this history length; no single Agentloom execution may reach it. */
export const HISTORY_LIMIT = 10_240;

/** The 1-minute load average, printed beside each row (the machine may be shared). */
export const loadAvg = (): string => os.loadavg()[0].toFixed(1);

type WorkflowBundle = Awaited<ReturnType<typeof bundleWorkflowCode>>;
type History = temporal.api.history.v1.IHistory;

export interface BenchEnv {
  dir: string;
  address: string;
  native: NativeConnection;
  connection: Connection;
  client: Client;
  store: FileBlobStore;
  /** src/workflows/index.ts, bundled once. */
  loomWorkflows: WorkflowBundle;
  /** The activities' factory, imported after LOOM_STORE_DIR points at this bench's store. */
  createActivities: typeof import('../src/activities').createActivities;
  close(): Promise<void>;
}

export async function startBenchEnv(name: string): Promise<BenchEnv> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `loom-bench-${name}-`));
  process.env.LOOM_STORE_DIR = path.join(dir, 'store');
  const server = await startDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), headless: true, fastSqlite: true, logFile: path.join(dir, 'temporal.log') });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const { createActivities } = await import('../src/activities');
  process.stderr.write('bundling workflows…\n');
  const loomWorkflows = await bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'src', 'workflows', 'index.ts'), logger: new DefaultLogger('ERROR') as never });
  return {
    dir, address: server.address, native, connection, client: new Client({ connection }),
    store: new FileBlobStore(path.join(dir, 'store')), loomWorkflows, createActivities,
    async close() {
      await connection.close();
      await native.close();
      await server.stop();
    },
  };
}

/** bench/fanout-direct-workflows.ts: the same fan-out hand-written on Temporal activities (the baseline). */
export async function bundleDirectWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath: require.resolve('./fanout-direct-workflows'), logger: new DefaultLogger('ERROR') as never });
}

/** The baseline's only activity: a zero-latency "model". */
export const directActivities = { async zeroLatencyModel(item: unknown) { return `done ${JSON.stringify(item).length}`; } };

/** A plain single-turn agent answering `content` at once (zero latency). */
export function benchMember(id: string, content: JsonValue = 'done'): CompiledAgent {
  return {
    agent_id: id, version: '1.0.0', spec_version: '1.0', status: 'active', meta: { name: id },
    instructions: '# Purpose\nBench member.', sections: [{ name: 'Purpose', text: 'Bench member.' }],
    runtime: { model: { model_id: `m-${id}`, version: '1', status: 'active', provider: 'scripted', scripted: { turns: [{ content }], latency_ms: 0 } }, max_turns: 2 },
    interface: { input: { schema: {}, examples: [] }, output: { schema: {} } },
    tools: { tool_choice: 'auto', refs: [] }, knowledge: { refs: [] },
    memory: { mode: 'none', read_collections: [], write_collections: [] },
    artifacts: { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'standard' },
    policies: { pii_redaction: false, allow_external_http: false, require_human_approval: false, blocked_content: [], allowed_connectors: [], audit_level: 'standard' },
    guardrails: { input: [], tool_input: [], tool_output: [], output: [], tool_calls: { require_user_confirmation_for: [], block_tools_on_input_fail: false } },
    orchestration: { can_delegate: false, allowed_delegates: [], can_be_invoked_as_tool: true, escalation: [] },
    execution_policy: { id: 'agf.react', config: {} }, local_agents: [], content_hash: id,
  };
}

/** The largest history and the number of executions among workflows whose id starts with `prefix`. */
export async function maxHistory(client: Client, prefix: string): Promise<{ max: number; executions: number }> {
  await new Promise((r) => setTimeout(r, 1500)); // visibility catches up
  let max = 0;
  let executions = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
    executions++;
    max = Math.max(max, wf.historyLength ?? 0);
  }
  return { max, executions };
}

/** Every execution of a continue-as-new chain, oldest first. */
export async function historyChain(client: Client, id: string): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(id).describe()).runId;
  while (runId) {
    const h: History = await client.workflow.getHandle(id, runId).fetchHistory();
    out.unshift(h);
    runId = h.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return out;
}

function eventMs(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!t) return 0;
  const sec = t.seconds as { toNumber?: () => number } | number | string | undefined;
  const whole = typeof sec === 'object' && sec?.toNumber ? sec.toNumber() : Number(sec ?? 0);
  return whole * 1000 + (t.nanos ?? 0) / 1e6;
}

/** Every execution (continue-as-new runs and shard children included) whose workflow id starts with `prefix`. */
export async function historiesOf(client: Client, prefix: string): Promise<History[]> {
  await new Promise((r) => setTimeout(r, 1500)); // visibility catches up
  const out: History[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
    out.push(await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory());
  }
  return out;
}

const payloadBytes = (ps: { data?: Uint8Array | null; metadata?: Record<string, Uint8Array> | null }[] | null | undefined): number =>
  (ps ?? []).reduce((s, p) => s + (p.data?.length ?? 0) + Object.values(p.metadata ?? {}).reduce((m, v) => m + v.length, 0), 0);

/**
 * Where the time and the bytes of a fan-out go, per member (BENCH_PROFILE): workflow tasks per
 * member, their wait (Scheduled -> Started) and run (Started -> Completed) summed over all
 * executions, workflow tasks that timed out or failed, activity wait and run, history events and
 * encoded history bytes, and the bytes of the activities' inputs, results and summaries.
 */
export function fanoutProfile(histories: History[], members: number): Record<string, number> {
  const { temporal: proto } = require('@temporalio/proto') as typeof import('@temporalio/proto');
  let wfts = 0, wftWait = 0, wftRun = 0, wftLost = 0, actWait = 0, actRun = 0, events = 0, bytes = 0, inBytes = 0, outBytes = 0, summaryBytes = 0;
  for (const h of histories) {
    const at = new Map<string, number>();
    for (const e of h.events ?? []) {
      const t = eventMs(e.eventTime as never);
      at.set(String(e.eventId), t);
      events++;
      bytes += proto.api.history.v1.HistoryEvent.encode(e).finish().length;
      const since = (id: unknown) => t - (at.get(String(id)) ?? t);
      if (e.workflowTaskStartedEventAttributes) { wfts++; wftWait += since(e.workflowTaskStartedEventAttributes.scheduledEventId); }
      if (e.workflowTaskCompletedEventAttributes) wftRun += since(e.workflowTaskCompletedEventAttributes.startedEventId);
      if (e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes) wftLost++;
      if (e.activityTaskScheduledEventAttributes) {
        inBytes += payloadBytes(e.activityTaskScheduledEventAttributes.input?.payloads);
        summaryBytes += payloadBytes(e.userMetadata?.summary ? [e.userMetadata.summary] : []);
      }
      if (e.activityTaskStartedEventAttributes) actWait += since(e.activityTaskStartedEventAttributes.scheduledEventId);
      if (e.activityTaskCompletedEventAttributes) {
        actRun += since(e.activityTaskCompletedEventAttributes.startedEventId);
        outBytes += payloadBytes(e.activityTaskCompletedEventAttributes.result?.payloads);
      }
    }
  }
  const per = (x: number, d = 2) => +(x / members).toFixed(d);
  return {
    executions: histories.length,
    'wf tasks/member': per(wfts, 3),
    'wf task wait ms/member': per(wftWait),
    'wf task run ms/member': per(wftRun),
    'wf tasks lost (timed out/failed)': wftLost,
    'activity wait ms/member': per(actWait),
    'activity run ms/member': per(actRun),
    'events/member': per(events),
    'history bytes/member': per(bytes, 0),
    'activity input bytes/member': per(inBytes, 0),
    'activity result bytes/member': per(outBytes, 0),
    'summary bytes/member': per(summaryBytes, 0),
  };
}

/** The input and result of the first activity of `type` recorded in `histories`, as text (BENCH_PROFILE prints them). */
export function firstActivityPayloads(histories: History[], type: string): string {
  const text = (ps: { data?: Uint8Array | null }[] | null | undefined) => (ps ?? []).map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')).join(', ');
  for (const h of histories) {
    const evs = h.events ?? [];
    const s = evs.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type);
    if (!s) continue;
    const c = evs.find((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(s.eventId));
    return `input: ${text(s.activityTaskScheduledEventAttributes?.input?.payloads)}\nresult: ${text(c?.activityTaskCompletedEventAttributes?.result?.payloads)}`;
  }
  return `no ${type} activity`;
}
