/** Human-queue escalation answered through the `loom` CLI, and a worker stopped mid-fan-out and restarted. */
import type { GraphPattern, EscalationRule } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { runCli } from '../../src/cli/main';
import { createTestWorker } from '../helpers/temporal';
import { createActivities } from '../../src/activities';
import { agent, answers, bundle, byInput, failingModel, locals } from './builders';
import { Harness, startHarness, waitFor } from './harness';
import { childWorkflowIds, historyEvents } from '../helpers/history';

let h: Harness;
beforeAll(async () => { h = await startHarness('orch-esc'); });
afterAll(async () => { await h?.close(); });

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => { out += String(s); return true; });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { err += String(s); return true; });
  const prev = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = process.env.LOOM_TEST_TEMPORAL_ADDRESS;
  try {
    const code = await runCli(args);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    if (prev === undefined) delete process.env.TEMPORAL_ADDRESS; else process.env.TEMPORAL_ADDRESS = prev;
  }
}

test('node_failure -> human_queue: the run waits, `loom escalations` lists it, `loom respond` resumes it', async () => {
  const esc: EscalationRule[] = [
    { on: 'node_failure', node: 'somewhere-else', target: { type: 'agent', id: 'nobody' } },
    { on: 'node_failure', target: { type: 'human_queue', id: 'ops-oncall' } },
  ];
  const pattern: GraphPattern = {
    type: 'graph', execution_timeout: 300, node_timeout: 60, reset_on_revisit: false,
    nodes: [{ id: 'fragile', agent_ref: 'fragile-agent' }, { id: 'after', agent_ref: 'after-agent' }],
    edges: [{ from: '$self', to: 'fragile' }, { from: 'fragile', to: 'after' }],
  };
  const b = bundle('needs-human', [
    agent({ id: 'needs-human', model: answers('go'), escalation: esc, pattern }),
    agent({ id: 'fragile-agent', model: failingModel('fragile broke') }),
    agent({ id: 'after-agent', model: byInput([{ contains: 'HUMAN-FIX', reply: { content: 'continued with the human answer' } }], { content: 'no human answer seen' }) }),
  ]);
  const wf = await h.start(b, 'x');
  const st = await waitFor(async () => {
    const s = await wf.query<RunStatus>('status');
    return s.state === 'waiting_for_human' ? s : undefined;
  }, 'the run to wait for a human');
  expect(st.escalation).toMatchObject({ queue: 'ops-oncall', reason: expect.stringMatching(/node 'fragile' failed.*fragile broke/) });

  const listed = await waitFor(async () => {
    const r = await cli(['escalations', '--queue', 'ops-oncall', '--json']);
    const rows = JSON.parse(r.out) as { workflow_id: string; queue: string }[];
    return rows.find((x) => x.workflow_id === wf.workflowId);
  }, 'loom escalations to list the run');
  expect(listed.queue).toBe('ops-oncall');

  const wrong = await cli(['respond', wf.workflowId, '--queue', 'other-queue', '--output', '"x"']);
  expect(wrong.code).toBe(1);
  expect(wrong.err).toMatch(/no escalation waiting on 'other-queue' in the tree of \S+; waiting: ops-oncall/);
  const ok = await cli(['respond', wf.workflowId, '--queue', 'ops-oncall', '--output', '{"fix":"HUMAN-FIX"}']);
  expect(ok.code).toBe(0);
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('continued with the human answer');
  expect(res.warnings.join('\n')).toMatch(/escalated to human queue 'ops-oncall'/);

  const after = await waitFor(async () => {
    const r = await cli(['list', '--agent', 'needs-human', '--json']);
    const rows = JSON.parse(r.out) as { workflow_id: string; agent_status: string }[];
    const row = rows.find((x) => x.workflow_id === wf.workflowId);
    return row?.agent_status === 'completed' ? row : undefined;
  }, 'loom list to show the completed run');
  expect(after.agent_status).toBe('completed');
  const del = await cli(['delete', wf.workflowId]);
  expect(del.code).toBe(0);
  // The server deletes asynchronously: `delete` says deleted, or requested; either way the run goes.
  expect(del.out).toMatch(/deleted|deletion of .* requested/);
  await waitFor(async () => ((await cli(['status', wf.workflowId])).code !== 0 ? true : undefined), 'the deleted run to be gone');
});

test('`loom respond --close` closes the escalation: the node stays failed and the run fails', async () => {
  const pattern: GraphPattern = {
    type: 'graph', execution_timeout: 300, node_timeout: 60, reset_on_revisit: false,
    nodes: [{ id: 'fragile', agent_ref: 'fragile-agent' }], edges: [{ from: '$self', to: 'fragile' }],
  };
  const b = bundle('closable', [
    agent({ id: 'closable', model: answers('go'), escalation: [{ on: 'node_failure', target: { type: 'human_queue', id: 'triage' } }], pattern }),
    agent({ id: 'fragile-agent', model: failingModel('broken again') }),
  ]);
  const wf = await h.start(b, 'x');
  await waitFor(async () => ((await wf.query<RunStatus>('status')).state === 'waiting_for_human' ? true : undefined), 'waiting_for_human');
  expect((await cli(['respond', wf.workflowId, '--queue', 'triage', '--close'])).code).toBe(0);
  await expect(wf.result()).rejects.toThrow();
});

test('a worker stopped mid-fan-out and restarted: the batch completes with every item', async () => {
  const b = bundle('resilient', [
    agent({ id: 'resilient', policy: { id: 'agf.batch', config: { agent: 'worker', input_mapping: { item: 'parent.input.items.[]' }, max_concurrency: 8 } }, local_agents: locals('worker') }),
    agent({ id: 'worker', model: answers('item done', 1500) }),
  ]);
  const wf = await h.start(b, { items: [1, 2, 3, 4, 5, 6, 7, 8] });
  // Mid-fan-out: members have started and none has finished (each model turn takes 1.5 s).
  await waitFor(async () => {
    const ev = await historyEvents(wf);
    const started = ev.filter((e) => e.childWorkflowExecutionStartedEventAttributes).length;
    const finished = ev.filter((e) => e.childWorkflowExecutionCompletedEventAttributes).length;
    return started > 0 && finished === 0 ? true : undefined;
  }, 'members to start (none finished yet)', 20000);
  h.worker.shutdown();
  await h.running;
  const w2 = await createTestWorker(h.t, createActivities(), { identity: 'restarted-worker' });
  h.worker = w2;
  h.running = w2.run();
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual(Array(8).fill('item done'));
  // The restart really was mid-fan-out: some members did work on the restarted worker.
  const members = childWorkflowIds(await historyEvents(wf));
  expect(members).toHaveLength(8);
  const resumed: string[] = [];
  for (const id of members) {
    const ev = await historyEvents(h.t.client.workflow.getHandle(id));
    const identities = ev.map((e) => e.workflowTaskStartedEventAttributes?.identity ?? e.activityTaskStartedEventAttributes?.identity);
    if (identities.includes('restarted-worker')) resumed.push(id);
  }
  expect(resumed.length).toBeGreaterThan(0);
});
