/**
 * `npm run bench:runtime`: an agf.react run with a zero-latency scripted model doing N turns with
 * one tool call each, against a hand-written minimal workflow (bench/baseline-workflow.ts)
 * making the same activity calls, on the same worker and server. Prints history events per turn,
 * history bytes per turn (1st vs 100th), wall time per turn and the ratios to the baseline.
 *
 * BENCH_TURNS (default 100) sets N; TEMPORAL_ADDRESS uses an existing server, otherwise a dev
 * server is started (in memory) and stopped.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client, Connection } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, PROJECT_ROOT, DevServer } from '../src/server/dev-server';
import { FileBlobStore, storeBundle } from '../src/activities/blob-store';
import { createActivities } from '../src/activities';
import type { CompiledAgent, CompiledBundle } from '../src/compiler/types';
import { eventBytes } from '../src/shared/history-size';

const N = Number(process.env.BENCH_TURNS ?? 100);
const TOOL_TEXT = 'a short tool argument';


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

function benchAgent(turns: number): CompiledAgent {
  return {
    agent_id: 'bench-react',
    version: '1.0.0',
    spec_version: '1.0',
    status: 'active',
    meta: { name: 'bench' },
    instructions: '# Purpose\nBenchmark.',
    sections: [],
    runtime: {
      model: {
        model_id: 'scripted-bench',
        version: '1',
        status: 'active',
        provider: 'scripted',
        scripted: {
          rules: [{ when: { turn: turns }, reply: { content: 'done' } }],
          turns: [{ tool_calls: [{ name: 'echo', arguments: { text: TOOL_TEXT } }] }],
        },
      },
    },
    interface: { input: { schema: {}, examples: [] }, output: { schema: {} } },
    tools: {
      tool_choice: 'auto',
      refs: [
        {
          tool_id: 'echo',
          version: '1',
          status: 'active',
          description: 'echo',
          kind: 'builtin',
          input_schema: { type: 'object', properties: { text: { type: 'string' } } },
          approval_required: false,
          sensitive_fields: [],
          side_effects: false,
          builtin: { name: 'echo' },
        },
      ],
    },
    knowledge: { refs: [] },
    memory: { mode: 'none', read_collections: [], write_collections: [] },
    artifacts: { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'standard' },
    policies: { pii_redaction: false, allow_external_http: false, require_human_approval: false, blocked_content: [], allowed_connectors: [], audit_level: 'standard' },
    guardrails: { input: [], tool_input: [], tool_output: [], output: [], tool_calls: { require_user_confirmation_for: [], block_tools_on_input_fail: false } },
    orchestration: { can_delegate: false, allowed_delegates: [], can_be_invoked_as_tool: false, escalation: [] },
    execution_policy: { id: 'agf.react', config: { max_steps: 100000 } },
    local_agents: [],
    content_hash: 'bench',
  };
}

const baselineActivities = (turns: number) => ({
  async baselineModel(conversation: { role: string; content: string }[], turn: number) {
    void conversation;
    return turn >= turns ? { content: 'done' } : { tool: { name: 'echo', args: { text: TOOL_TEXT } } };
  },
  async baselineTool(_name: string, args: Record<string, unknown>) {
    return String(args.text);
  },
});

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  let server: DevServer | undefined;
  let address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    server = await startDevServer({ headless: true, fastSqlite: true, dbFile: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log') });
    address = server.address;
  }
  const store = new FileBlobStore(path.join(tmp, 'store'));
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(PROJECT_ROOT, 'bench', 'workflows.ts'), logger: new DefaultLogger('WARN') });
  const nc = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `bench-${Date.now()}`;
  const worker = await Worker.create({
    connection: nc,
    taskQueue,
    workflowBundle: { code },
    activities: { ...createActivities({ store }), ...baselineActivities(N) },
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

  await worker.runUntil(async () => {
    // Warm-up (worker caches, server), then alternate measured runs.
    await runBaseline(`baseline-warm-${Date.now()}`);
    await runReact(`react-warm-${Date.now()}`);
    const base = await runBaseline(`baseline-${Date.now()}`);
    const react = await runReact(`react-${Date.now()}`);
    const b = perTurn(base.history, 'baselineModel');
    const r = perTurn(react.history, 'modelTurn');
    const turnIdx = Math.min(99, N - 1);
    const row = (name: string, x: typeof b, ms: number) => ({
      run: name,
      turns: x.events.length - 1,
      'events total': x.total,
      'events/turn': +(x.total / N).toFixed(2),
      'bytes turn 1': x.bytes[0],
      [`bytes turn ${turnIdx + 1}`]: x.bytes[turnIdx],
      'bytes total': x.totalBytes,
      'ms/turn': +(ms / N).toFixed(2),
    });
    const rows = [row('baseline', b, base.ms), row('agf.react', r, react.ms)];
    console.table(rows);
    console.log(
      `ratios agf.react / baseline: events/turn ${(r.total / b.total).toFixed(2)}x, wall time ${(react.ms / base.ms).toFixed(2)}x, ` +
        `bytes turn ${turnIdx + 1} ${(r.bytes[turnIdx] / b.bytes[turnIdx]).toFixed(2)}x, total bytes ${(r.totalBytes / b.totalBytes).toFixed(2)}x`,
    );
    console.log(
      `growth (turn ${turnIdx + 1} / turn 1): agf.react ${(r.bytes[turnIdx] / r.bytes[0]).toFixed(2)}x (turn 2 -> ${turnIdx + 1}: ${(r.bytes[turnIdx] / r.bytes[1]).toFixed(2)}x), baseline ${(b.bytes[turnIdx] / b.bytes[0]).toFixed(2)}x`,
    );
  });
  await connection.close();
  await nc.close();
  if (server) await server.stop();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
