/**
 * `loom artifacts RUN_ID [--get NAME] [--json]`: list a run's artifacts (the Agent Definition Specification's; kind, retention
 * class, expiry, size) or print one, read from the shared store (LOOM_STORE_URL) — no Temporal
 * connection needed. `restricted` artifacts are opened with the codec key (LOOM_CODEC_KEY…).
 * `loom artifacts purge [--schedule [--every 1h]]`: delete expired artifacts now (one run of
 * artifactsPurgeWorkflow on a worker), or create/update the Temporal Schedule `loom-artifacts-purge`
 * that runs it every interval.
 */
import { defineCommand } from '../args';
import { UsageError } from '../../operator/errors';

export const PURGE_SCHEDULE_ID = 'loom-artifacts-purge';

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

async function purge(flags: Record<string, string | true>): Promise<number> {
  const { connect } = await import('../../operator/connect');
  const { DEFAULT_TASK_QUEUE } = await import('../../shared/contract');
  const taskQueue = process.env.LOOM_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const s = await connect({ embedded: 'never' });
  try {
    if (flags.schedule === true) {
      const every = typeof flags.every === 'string' ? flags.every : '1h';
      if (!/^\d+(s|m|h|d)$/.test(every)) throw new UsageError(`--every takes a duration like 30m, 1h or 1d, got '${every}'`);
      const { ScheduleAlreadyRunning } = await import('@temporalio/client');
      const action = { type: 'startWorkflow' as const, workflowType: 'artifactsPurgeWorkflow', taskQueue, args: [] };
      const spec = { intervals: [{ every: every as `${number}h` }] };
      try {
        await s.client.schedule.create({ scheduleId: PURGE_SCHEDULE_ID, spec, action });
        process.stdout.write(`schedule ${PURGE_SCHEDULE_ID} created: artifactsPurgeWorkflow every ${every} on task queue ${taskQueue}\n`);
      } catch (err) {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
        await s.client.schedule.getHandle(PURGE_SCHEDULE_ID).update((prev) => ({ ...prev, spec, action }));
        process.stdout.write(`schedule ${PURGE_SCHEDULE_ID} updated: artifactsPurgeWorkflow every ${every} on task queue ${taskQueue}\n`);
      }
      return 0;
    }
    if (flags.every !== undefined) throw new UsageError('--every goes with --schedule');
    const out = (await s.client.workflow.execute('artifactsPurgeWorkflow', { taskQueue, workflowId: `loom-artifacts-purge-${Date.now()}`, args: [] })) as { purged: number; store: string; ephemeral_outputs?: number };
    // Ephemeral runs' outputs nobody collected within LOOM_EPHEMERAL_PICKUP_HOURS are deleted too.
    const uncollected = out.ephemeral_outputs ? `, and ${out.ephemeral_outputs} uncollected ephemeral output(s)` : '';
    process.stdout.write(`purged ${out.purged} expired artifact(s) from ${out.store}${uncollected}\n`);
    return 0;
  } finally {
    await s.close();
  }
}

export const run = defineCommand(
  'artifacts',
  {
    usage: 'loom artifacts RUN_ID [--get NAME] [--json] | loom artifacts purge [--schedule [--every 1h]]',
    options: { get: { type: 'string', value: 'NAME', help: 'print the content of the artifact NAME instead of the list.' }, json: { type: 'boolean', help: 'print JSON instead of text.' }, schedule: { type: 'boolean', help: 'with purge: create or update the Temporal Schedule that purges expired artifacts regularly.' }, every: { type: 'string', value: 'INTERVAL', help: 'with purge --schedule: how often the schedule runs (e.g. 30m, 1h; default 1h).' } },
    positionals: { min: 1, max: 1, names: ['RUN_ID'] },
  },
  async (args) => {
    const id = args.positionals[0];
    if (id === 'purge') return purge(args.flags);
    if (args.flags.schedule !== undefined || args.flags.every !== undefined) throw new UsageError('--schedule and --every go with `loom artifacts purge`');
    const { openStore } = await import('../../store/open');
    const store = openStore();
    try {
      if (typeof args.flags.get === 'string') {
        const a = await store.getArtifact(id, args.flags.get);
        if (!a) {
          const names = (await store.listArtifacts(id)).map((x) => x.name);
          process.stderr.write(`loom artifacts: run ${id} has no artifact '${args.flags.get}' in ${store.location}${names.length ? `; it has ${names.join(', ')}` : ' (none: artifacts disabled, ephemeral, expired, or a different LOOM_STORE_URL)'}\n`);
          return 1;
        }
        const { codecKeysFromEnv } = await import('../../codec/keys');
        const { unseal } = await import('../../store/encrypted');
        const body = unseal(a.content, codecKeysFromEnv(), `artifact ${a.name} of run ${id} (${a.retention_class})`);
        process.stdout.write(body.toString('utf8').replace(/\n?$/, '\n'));
        return 0;
      }
      const list = await store.listArtifacts(id);
      if (args.flags.json === true) {
        process.stdout.write(JSON.stringify(list) + '\n');
        return 0;
      }
      if (!list.length) {
        process.stdout.write(`run ${id} has no artifacts in ${store.location} (artifacts disabled, ephemeral, expired, or a different LOOM_STORE_URL)\n`);
        return 0;
      }
      process.stdout.write(table([['NAME', 'KIND', 'RETENTION', 'EXPIRES', 'BYTES'], ...list.map((a) => [a.name, a.kind, a.retention_class, a.expires_at, String(a.bytes)])]));
      return 0;
    } finally {
      await store.close();
    }
  },
);
