/**
 * `loom dev [--verbose]`: the embedded Temporal dev server (SQLite under .loom/, runs survive a
 * restart, Web UI) and a worker, in the foreground until Ctrl-C / SIGTERM, then a clean stop (exit 0).
 * Other `loom` commands in this folder find it through .loom/dev.json.
 */
import { defineCommand } from '../args';
import { startEmbeddedServer, writeDevInfo, removeDevInfo, readDevInfo } from '../connect';

export const run = defineCommand(
  'dev',
  { usage: 'loom dev [--verbose]', options: { verbose: { type: 'boolean' } }, positionals: { min: 0, max: 0 } },
  async (args) => {
    const existing = readDevInfo();
    if (existing) { process.stderr.write(`loom dev: already running (pid ${existing.pid}) at ${existing.address}\n`); return 1; }
    const { NativeConnection } = await import('@temporalio/worker');
    const { createAgentloomWorker, installWorkerRuntime } = await import('../../worker/create-worker');
    installWorkerRuntime(args.flags.verbose === true);
    const server = await startEmbeddedServer();
    let connection: import('@temporalio/worker').NativeConnection | undefined;
    try {
      connection = await NativeConnection.connect({ address: server.address });
      const worker = await createAgentloomWorker({ connection });
      writeDevInfo({ address: server.address, uiUrl: server.uiUrl, pid: process.pid });
      const stop = () => worker.shutdown();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const codecLine = server.codecUrl ? `codec endpoint: ${server.codecUrl} (the Web UI decodes payloads with it)\n` : '';
      process.stdout.write(`Temporal dev server: ${server.address}\nWeb UI: ${server.uiUrl}\n${codecLine}worker polling task queue '${process.env.LOOM_TASK_QUEUE ?? 'agentloom'}' — Ctrl-C to stop\n`);
      try {
        await worker.run();
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    } finally {
      removeDevInfo();
      if (connection) await connection.close();
      await server.stop();
    }
    process.stdout.write('loom dev: worker and server stopped\n');
    return 0;
  },
);
