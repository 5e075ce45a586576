/**
 * One run of each bench:throughput workload (agf.react and the hand-written baseline) on a fresh dev
 * server, with the bench's worker settings: prints each history's events by type, its workflow
 * tasks and its size in bytes. `npx ts-node --transpile-only bench/throughput-histories.ts` (SHOW_EVENTS=1 lists every event).
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
  const bundle = await storeBundle(store, { format: 'agentloom.compiled/v1', root: agent.agent_id, agents: { [agent.agent_id]: agent }, content_hash: 'throughput' } as CompiledBundle);
  const nc = await NativeConnection.connect({ address: server.address });
  const taskQueue = 'throughput-histories';
  const worker = await Worker.create({
    connection: nc, taskQueue, workflowBundle: { code },
    activities: { ...createActivities({ store }), ...baselineActivities(TURNS) },
    ...WORKER_TUNING,
  });
  try {
    await worker.runUntil(async () => {
      for (const [name, start] of [
        ['agf.react', () => client.workflow.execute('agfReactWorkflow', { taskQueue, workflowId: 'react-1', args: [{ bundle, agent_id: agent.agent_id, input: 'go' }] })],
        ['baseline', () => client.workflow.execute('benchBaselineWorkflow', { taskQueue, workflowId: 'baseline-1', args: ['go'] })],
      ] as const) {
        await start();
        const id = name === 'agf.react' ? 'react-1' : 'baseline-1';
        const history = await client.workflow.getHandle(id).fetchHistory();
        const bytes = temporal.api.history.v1.History.encode(history).finish().length;
        const types: Record<string, number> = {};
        for (const e of history.events ?? []) {
          const t = temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');
          types[t] = (types[t] ?? 0) + 1;
        }
        console.log(`${name}: ${history.events?.length} events, ${bytes} bytes, ${types.WORKFLOW_TASK_COMPLETED ?? 0} workflow tasks`);
        console.table(types);
        if (process.env.SHOW_EVENTS) {
          for (const e of history.events ?? []) {
            const t = temporal.api.enums.v1.EventType[e.eventType ?? 0].replace('EVENT_TYPE_', '');
            const a = e.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
            console.log(`  ${e.eventId} ${t} ${a} ${temporal.api.history.v1.HistoryEvent.encode(e).finish().length}`);
          }
        }
      }
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
