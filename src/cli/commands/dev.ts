/**
 * `loom dev`: the embedded Temporal dev server (SQLite under .loom/, runs survive a restart, Web UI)
 * and a worker, in the foreground until Ctrl-C. Other `loom` commands in this folder find it.
 */
import { NativeConnection } from '@temporalio/worker';
import { startEmbeddedServer, writeDevInfo, removeDevInfo, readDevInfo } from '../connect';
import { createAgentloomWorker } from '../../worker/create-worker';

export async function run(_argv: string[]): Promise<number> {
  const existing = readDevInfo();
  if (existing) { process.stderr.write(`loom dev is already running (pid ${existing.pid}) at ${existing.address}\n`); return 1; }
  const server = await startEmbeddedServer();
  writeDevInfo({ address: server.address, uiUrl: server.uiUrl, pid: process.pid });
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await createAgentloomWorker({ connection });
  process.stdout.write(`Temporal dev server: ${server.address}\nWeb UI: ${server.uiUrl}\nworker polling task queue '${process.env.LOOM_TASK_QUEUE ?? 'agentloom'}' — Ctrl-C to stop\n`);
  const stop = () => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await worker.run();
  } finally {
    removeDevInfo();
    await connection.close();
    await server.stop();
  }
  return 0;
}
