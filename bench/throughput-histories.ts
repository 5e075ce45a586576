/**
 * One run of each bench:throughput workload (agf.react and the hand-written baseline) on a fresh dev
 * server, with the bench's worker settings: prints each history's events by type, its workflow
 * tasks and its size in bytes. agf.react runs twice: started with only `bundle` + `agent_id` (it
 * loads its agent: the history before) and with the start input AgentloomClient builds (the
 * agent's view in it: after, what bench:throughput runs). `npx ts-node --transpile-only bench/throughput-histories.ts` (SHOW_EVENTS=1 lists every event).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startDevServer } from '../src/platform/temporal-dev-server';
import { FileBlobStore, storeBundle } from '../src/activities/blob-store';
import { createActivities } from '../src/activities';
import { WORKER_TUNING } from '../src/worker/create-worker';
import { withAgentView } from '../src/runtime/agent-view-build';
import type { CompiledBundle } from '../src/compiled/types';
import { baselineActivities, benchAgent } from './react-agent';

const TURNS = 2;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-throughput-histories-'));
  const server = await startDevServer({ headless: true, fastSqlite: true, dbFile: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log') });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const store = new FileBlobStore(path.join(tmp, 'store'));
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflows.ts'), logger: new DefaultLogger('ERROR') });
  const agent = benchAgent(TURNS);
  const compiled = { format: 'agentloom.compiled/v1', root: agent.agent_id, agents: { [agent.agent_id]: agent }, content_hash: 'throughput' } as CompiledBundle;
  const bundle = await storeBundle(store, compiled);
  const nc = await NativeConnection.connect({ address: server.address });
  const taskQueue = 'throughput-histories';
  const worker = await Worker.create({
    connection: nc, taskQueue, workflowBundle: { code },
    activities: { ...createActivities({ store }), ...baselineActivities(TURNS) },
    ...WORKER_TUNING,
  });
  try {
    await worker.runUntil(async () => {
      const summary: Record<string, { events: number; bytes: number; workflowTasks: number }> = {};
      // agf.react twice: started with only bundle + agent_id (the run loads its agent: before), and with
      // the input AgentloomClient builds (the agent's view in it, withAgentView: after); then the baseline.
      for (const [name, id, start] of [
        ['agf.react (bundle + agent_id: loadAgent)', 'react-load', () => client.workflow.execute('agfReactWorkflow', { taskQueue, workflowId: 'react-load', args: [{ bundle, agent_id: agent.agent_id, input: 'go' }] })],
        ['agf.react (the client\'s start input: view)', 'react-view', () => client.workflow.execute('agfReactWorkflow', { taskQueue, workflowId: 'react-view', args: [withAgentView({ bundle, agent_id: agent.agent_id, input: 'go' }, compiled, 'agfReactWorkflow')] })],
        ['baseline', 'baseline-1', () => client.workflow.execute('benchBaselineWorkflow', { taskQueue, workflowId: 'baseline-1', args: ['go'] })],
      ] as const) {
        await start();
        const history = await client.workflow.getHandle(id).fetchHistory();
        const bytes = temporal.api.history.v1.History.encode(history).finish().length;
        const types: Record<string, number> = {};
        for (const e of history.events ?? []) {
          const t = temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');
          types[t] = (types[t] ?? 0) + 1;
        }
        summary[name] = { events: history.events?.length ?? 0, bytes, workflowTasks: types.WORKFLOW_TASK_COMPLETED ?? 0 };
        console.log(`${name}: ${history.events?.length} events, ${bytes} bytes, ${types.WORKFLOW_TASK_COMPLETED ?? 0} workflow tasks, ${types.ACTIVITY_TASK_SCHEDULED ?? 0} activity tasks`);
        console.table(types);
        if (process.env.SHOW_EVENTS) {
          for (const e of history.events ?? []) {
            const t = temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');
            const a = e.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
            console.log(`  ${e.eventId} ${t} ${a} ${temporal.api.history.v1.HistoryEvent.encode(e).finish().length}`);
          }
        }
      }
      console.log('agf.react history, before (loadAgent) / after (view in the start input):');
      console.table(summary);
    });
  } finally {
    await nc.close();
    await connection.close();
    await server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
