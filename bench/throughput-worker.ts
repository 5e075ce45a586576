/**
 * One worker process of `npm run bench:throughput`: the production activities and the project's
 * worker settings (WORKER_TUNING), over a workflow bundle the bench built once (production
 * workflows plus the hand-written baseline, bench/workflows.ts), with the baseline's activities.
 * Prints `READY <pid>` once polling; exits when its stdin closes, so a killed bench leaves no
 * worker behind. The bench reads this process's peak memory from /proc.
 *
 * Environment: BENCH_ADDRESS, BENCH_TASK_QUEUE, BENCH_BUNDLE (a file of bundled code), BENCH_STORE_DIR,
 * BENCH_TURNS (the baseline's turns).
 */
import * as fs from 'fs';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { WORKER_TUNING } from '../src/worker/create-worker';
import { FileBlobStore } from '../src/activities/blob-store';
import { createActivities } from '../src/activities';
import { baselineActivities } from './react-agent';

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address: need('BENCH_ADDRESS') });
  const worker = await Worker.create({
    connection,
    taskQueue: need('BENCH_TASK_QUEUE'),
    workflowBundle: { code: fs.readFileSync(need('BENCH_BUNDLE'), 'utf8') },
    activities: { ...createActivities({ store: new FileBlobStore(need('BENCH_STORE_DIR')) }), ...baselineActivities(Number(need('BENCH_TURNS'))) },
    ...WORKER_TUNING,
  });
  process.stdin.on('close', () => worker.shutdown());
  process.stdin.resume();
  const running = worker.run();
  process.stdout.write(`READY ${process.pid}\n`);
  await running;
  await connection.close();
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
