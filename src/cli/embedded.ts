/**
 * The CLI's embedded mode: with no cluster configured and no `loom dev` running in this folder,
 * `loom run`, `loom chat` and `loom dispatch` start a Temporal dev server (SQLite under .loom/) and
 * an in-process worker, and stop both when the command ends.
 */
import type { Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { clientFor, removeDevInfo, startEmbeddedServer, writeDevInfo, type LoomSession } from '../operator/connect';

export async function withEmbeddedWorker(namespace: string, verbose?: boolean): Promise<LoomSession> {
  const { NativeConnection } = await import('@temporalio/worker');
  const { createAgentloomWorker, installWorkerRuntime } = await import('../worker/create-worker');
  installWorkerRuntime(verbose);
  const server = await startEmbeddedServer();
  let native: import('@temporalio/worker').NativeConnection | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let connection: Connection | undefined;
  const stopAll = async () => {
    // Client first (the caller has awaited its calls), then the worker and its connection, the server last.
    removeDevInfo();
    if (connection) await connection.close();
    if (worker && running) {
      worker.shutdown();
      await running;
    }
    if (native) await native.close();
    await server.stop();
  };
  try {
    native = await NativeConnection.connect({ address: server.address });
    worker = await createAgentloomWorker({ connection: native });
    running = worker.run();
    // Marked handled here; a worker failure still rejects close() (it is awaited there).
    running.catch(() => undefined);
    const c = await clientFor(server.address, namespace);
    connection = c.connection;
    // Let `loom approve/status/…` from another shell reach this embedded server while it runs.
    writeDevInfo({ address: server.address, uiUrl: server.uiUrl, pid: process.pid });
    return { client: c.client, address: server.address, namespace, uiUrl: server.uiUrl, embedded: true, close: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
