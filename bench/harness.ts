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
