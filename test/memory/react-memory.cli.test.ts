/**
 * Memory in single runs through the real CLI (issue 12.4): `loom start --actor` on a copy of the
 * customer-support example that also writes its collection (customer-preferences, namespace
 * `prefs/{actorId}`, writeback `summary` with approval_required). The writeback waits under the actor's namespace,
 * `loom approve` writes it, the same actor's next run reads it, another actor's does not.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunStatus } from '../../src/shared/contract';
import { approveUpdate, statusQuery } from '../../src/shared/definitions';
import { EXAMPLES, startCliHarness, until, CliHarness, useBuiltCli } from '../cli/harness';

let h: CliHarness;
let REGISTRY: string;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('react-memory-cli');
  // The example reads its collection only (so `loom run` needs no one); this copy writes it back too.
  REGISTRY = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-memory-registry-'));
  fs.cpSync(path.join(EXAMPLES, 'customer-support'), REGISTRY, { recursive: true });
  const file = path.join(REGISTRY, 'agents', 'customer-support-agent.agent.md');
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toMatch(/^ {2}write_collections: \[\]$/m);
  fs.writeFileSync(file, text.replace(/^ {2}write_collections: \[\]$/m, '  write_collections: ["customer-preferences"]'));
});
afterAll(async () => {
  await h.close();
  fs.rmSync(REGISTRY, { recursive: true, force: true });
});

const WRITEBACK = 'memory-1-customer-preferences';

async function startRun(actor: string): Promise<WorkflowHandle> {
  const r = await h.loom(['start', 'customer-support-agent', '--registry', REGISTRY, '--actor', actor]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return h.handle(r.out.trim());
}

/** Approve the run's tool approvals until its memory writeback is the one waiting. */
async function untilWriteback(run: WorkflowHandle): Promise<RunStatus> {
  return until('the memory writeback to wait for approval', async () => {
    const s = await run.query(statusQuery);
    const mem = s.pending_approvals.find((p) => p.call_id === WRITEBACK);
    if (mem) return s;
    for (const p of s.pending_approvals) await run.executeUpdate(approveUpdate, { args: [{ call_id: p.call_id, by: 'test' }] }).catch(() => undefined);
    return undefined;
  });
}

/** What the run's memoryReadMessage activity found, per collection (from its history). */
async function found(run: WorkflowHandle): Promise<Record<string, number>> {
  const events = (await run.fetchHistory()).events ?? [];
  const sched = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'memoryReadMessage');
  const done = events.find((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(sched?.eventId));
  const data = done?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
  if (!data) throw new Error('no memoryReadMessage result in the history');
  return (JSON.parse(Buffer.from(data).toString('utf8')) as { found: Record<string, number> }).found;
}

test('loom start --actor: the writeback waits under prefs/<actor>, loom approve writes it, the actor\'s next run reads it and another actor\'s does not', async () => {
  const first = await startRun('ada');
  const st = await untilWriteback(first);
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals.find((p) => p.call_id === WRITEBACK)).toMatchObject({ tool: 'memory_writeback', arguments: { collection: 'customer-preferences', namespace: 'prefs/ada' } });
  expect(await found(first)).toEqual({ 'customer-preferences': 0 });
  // The inbox lists it with the command that answers it, as for a tool approval.
  const inbox = await until('the writeback in loom inbox', async () => {
    const rows = JSON.parse((await h.loom(['inbox', '--json'])).out) as { root_workflow_id: string; ref: string; tool?: string; answer: string[] }[];
    return rows.find((r) => r.root_workflow_id === first.workflowId);
  });
  expect(inbox).toMatchObject({ ref: WRITEBACK, tool: 'memory_writeback', answer: [`loom approve ${first.workflowId} ${WRITEBACK}`, `loom reject ${first.workflowId} ${WRITEBACK} --reason TEXT`] });
  const ok = await h.loom(['approve', first.workflowId, WRITEBACK]);
  expect(ok.code).toBe(0);
  expect(((await first.result()) as { output: { answer: string } }).output.answer).toMatch(/Reset password/);

  const again = await startRun('ada');
  await untilWriteback(again);
  expect(await found(again)).toEqual({ 'customer-preferences': 1 });
  const other = await startRun('bob');
  await untilWriteback(other);
  expect(await found(other)).toEqual({ 'customer-preferences': 0 });
  for (const run of [again, other]) {
    expect((await h.loom(['reject', run.workflowId, WRITEBACK, '--reason', 'test over'])).code).toBe(0);
    await run.result();
  }
}, 180_000);

test('prepareRun (loom run/start): --actor and --session become RunOptions.actor_id/session_id for an agent with memory; $USER by default; nothing for an agent without', async () => {
  const { prepareRun } = await import('../../src/operator/runs');
  const inSession = await prepareRun('customer-support-agent', REGISTRY, undefined, { actor_id: 'ada' }, 'support-42');
  expect(inSession.runInput.options).toMatchObject({ actor_id: 'ada', session_id: 'support-42' });
  const user = process.env.USER;
  process.env.USER = 'uma';
  try {
    const plain = await prepareRun('customer-support-agent', REGISTRY, undefined, undefined);
    expect(plain.runInput.options).toEqual({ actor_id: 'uma' });
  } finally {
    process.env.USER = user;
  }
  const none = await prepareRun('trip-planner', path.join(EXAMPLES, 'demo'), undefined, { actor_id: 'ada' });
  expect(none.runInput.options).toEqual({ actor_id: 'ada' });
  expect((await prepareRun('trip-planner', path.join(EXAMPLES, 'demo'), undefined, undefined)).runInput.options).toBeUndefined();
}, 60_000);
