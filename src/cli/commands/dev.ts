/**
 * `loom dev [--verbose]`: the embedded Temporal dev server (SQLite under .loom/, runs survive a
 * restart, Web UI) and a worker, in the foreground until Ctrl-C / SIGTERM, then a clean stop (exit 0).
 * Other `loom` commands in this folder find it through .loom/dev.json.
 *
 * The server is watched: when it dies (a non-zero exit or a signal other than SIGINT/SIGTERM, which
 * stop `loom dev` with it), `loom dev` says so on stderr at once, removes dev.json and
 * starts it again on the same SQLite file and ports, so the runs resume and the worker (which retries
 * its polls meanwhile) picks them up; dev.json is written back once it is up. After LOOM_DEV_RESTARTS
 * (default 3) restarts within 10 minutes, or a restart that fails, it stops with exit 1 and the reason.
 */
import { defineCommand } from '../args';
import type { DevServer } from '../../platform/temporal-dev-server';

/** Restarts allowed within RESTART_WINDOW_MS before `loom dev` gives up. */
export const DEFAULT_DEV_RESTARTS = 3;
export const RESTART_WINDOW_MS = 10 * 60_000;

function restartBudget(env: NodeJS.ProcessEnv): number {
  const raw = env.LOOM_DEV_RESTARTS?.trim();
  if (!raw) return DEFAULT_DEV_RESTARTS;
  if (!/^\d+$/.test(raw)) throw new Error(`LOOM_DEV_RESTARTS must be a whole number of restarts (0 to never restart), got '${raw}'`);
  return Number(raw);
}

/** A clean exit or SIGINT/SIGTERM: the server was asked to stop (not restarted); anything else is a crash. */
export function stoppedOnPurpose(code: number | null, signal: NodeJS.Signals | null): boolean {
  return signal === 'SIGINT' || signal === 'SIGTERM' || (signal === null && code === 0);
}

export const run = defineCommand(
  'dev',
  { usage: 'loom dev [--verbose]', options: { verbose: { type: 'boolean', help: 'show the worker\'s INFO log (default: errors only).' } }, positionals: { min: 0, max: 0 } },
  async (args) => {
    const { startEmbeddedServer, writeDevInfo, removeDevInfo, readDevInfo } = await import('../../operator/connect');
    const existing = readDevInfo();
    if (existing) { process.stderr.write(`loom dev: already running (pid ${existing.pid}) at ${existing.address}\n`); return 1; }
    const budget = restartBudget(process.env);
    const { NativeConnection } = await import('@temporalio/worker');
    const { createAgentloomWorker, installWorkerRuntime } = await import('../../worker/create-worker');
    const { describeError } = await import('../../operator/errors');
    installWorkerRuntime(args.flags.verbose === true);
    const server = await startEmbeddedServer();
    let current: DevServer = server;
    let stopping = false;
    let gaveUp: string | undefined;
    let connection: import('@temporalio/worker').NativeConnection | undefined;
    try {
      connection = await NativeConnection.connect({ address: server.address });
      const worker = await createAgentloomWorker({ connection });
      const info = { address: server.address, uiUrl: server.uiUrl, pid: process.pid };
      writeDevInfo(info);
      const shutdown = () => {
        try { worker.shutdown(); } catch { /* already shutting down */ }
      };
      const stop = () => { stopping = true; shutdown(); };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const restarts: number[] = [];
      const giveUp = (why: string) => {
        gaveUp = why;
        process.stderr.write(`loom dev: ${why}; stopping\n`);
        stopping = true;
        shutdown();
      };
      const watch = (s: DevServer): void => {
        void s.exited.then(async ({ code, signal }) => {
          if (stopping) return;
          removeDevInfo(); // no server behind it now
          const how = signal ? `signal ${signal}` : `exit code ${code}`;
          if (stoppedOnPurpose(code, signal)) {
            // Ctrl-C reaches the whole process group, the server too; or someone stopped it: stop with it.
            process.stderr.write(`loom dev: the Temporal dev server (pid ${s.pid}) stopped (${how}); stopping the worker too\n`);
            stopping = true;
            shutdown();
            return;
          }
          process.stderr.write(`loom dev: the Temporal dev server (pid ${s.pid}) died (${how}); its log: ${s.logFile}\n`);
          const now = Date.now();
          while (restarts.length && now - restarts[0] > RESTART_WINDOW_MS) restarts.shift();
          if (restarts.length >= budget) {
            giveUp(`not restarting the Temporal dev server: ${budget ? `${restarts.length} restart(s) in the last ${RESTART_WINDOW_MS / 60_000} minutes already` : 'restarts are off'} (LOOM_DEV_RESTARTS=${budget})`);
            return;
          }
          restarts.push(now);
          process.stderr.write(`loom dev: restarting it on the same SQLite file (restart ${restarts.length} of ${budget} within ${RESTART_WINDOW_MS / 60_000} minutes)\n`);
          try {
            const next = await s.restart();
            if (stopping) { await next.stop(); return; }
            current = next;
            writeDevInfo(info);
            process.stderr.write(`loom dev: Temporal dev server restarted (pid ${next.pid}) at ${next.address}; runs resume\n`);
            watch(next);
          } catch (err) {
            giveUp(`the Temporal dev server could not be restarted: ${describeError(err)}`);
          }
        });
      };
      watch(server);
      const codecLine = server.codecUrl ? `codec endpoint: ${server.codecUrl} (the Web UI decodes payloads with it)\n` : '';
      process.stdout.write(`Temporal dev server: ${server.address}\nWeb UI: ${server.uiUrl}\n${codecLine}worker polling task queue '${process.env.LOOM_TASK_QUEUE ?? 'agentloom'}' — Ctrl-C to stop\n`);
      try {
        await worker.run();
      } catch (err) {
        // The worker gives up on a server that stays away (its polls fail for over a minute).
        if (!gaveUp) giveUp(`the worker stopped: ${describeError(err)}`);
      } finally {
        stopping = true;
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    } finally {
      stopping = true;
      removeDevInfo();
      if (connection) await connection.close();
      await current.stop();
      await server.stop(); // the first server (already stopped when restarted) and the codec endpoint
    }
    if (gaveUp) {
      process.stderr.write('loom dev: worker stopped, exit 1\n');
      return 1;
    }
    process.stdout.write('loom dev: worker and server stopped\n');
    return 0;
  },
);
