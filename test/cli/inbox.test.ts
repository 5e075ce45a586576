/**
 * Answering from the root (issue 9), as a user does it (`node bin/loom.js …` in a child process):
 * `loom status ROOT` prints the decisions waiting in members with their paths, and
 * `loom approve ROOT CALL_ID` / `ROOT PATH:CALL_ID` finds the member holding the call and answers
 * it there; a call id pending in two members is refused with both candidates named.
 */
import { randomUUID } from 'crypto';
import type { CompiledAgent, CompiledBundle, CompiledTool, ScriptedModelConfig } from '../../src/compiled/types';
import type { AgentRunResult, RunAgentInput } from '../../src/shared/contract';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';
import { patternOf, workflowTypeFor } from '../../src/shared/dispatch';
import { agent, bundle, locals, store } from '../orchestration/builders';
import type { InboxEntry } from '../../src/operator/inbox';
import { CliHarness, json, startCliHarness, statusWhen, until, useBuiltCli } from './harness';

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => { h = await startCliHarness('inbox'); });
afterAll(async () => h?.close());

const CHARGE: CompiledTool = {
  tool_id: 'charge', version: '1.0.0', status: 'active', description: 'charge a card', kind: 'builtin',
  input_schema: { type: 'object', properties: { text: { type: 'string' }, card: { type: 'string' }, amount: { type: 'number' } }, required: ['text'] },
  approval_required: true, sensitive_fields: ['card'], side_effects: true, builtin: { name: 'echo' },
};

function charger(id: string, callId: string): CompiledAgent {
  const model: ScriptedModelConfig = {
    turns: [{ tool_calls: [{ id: callId, name: 'charge', arguments: { text: `${id} paid`, card: '4111-1111', amount: 9 } }] }, { content: '{{last_tool_result}}' }],
  };
  return { ...agent({ id, model }), tools: { tool_choice: 'auto', refs: [CHARGE] } };
}

async function start(b: CompiledBundle, input: string): Promise<string> {
  const root = b.agents[b.root];
  const args: RunAgentInput = { bundle: await store(b), agent_id: b.root, input };
  const id = `inbox-${b.root}-${randomUUID().slice(0, 8)}`;
  await h.t.client.workflow.start(workflowTypeFor(root)!, {
    taskQueue: h.taskQueue,
    workflowId: id,
    args: [args],
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [b.root], [SEARCH_ATTRIBUTES.pattern]: [patternOf(root)], [SEARCH_ATTRIBUTES.status]: ['running'] },
  });
  return id;
}

test('a 3-stage pipeline: loom status ROOT shows the 2nd member\'s approval with its path; loom approve ROOT CALL completes the run', async () => {
  const id = await start(
    bundle('pipeline', [
      agent({ id: 'pipeline', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'drafter' }, { agent: 'payer' }, { agent: 'closer' }], output_from: 'closer' } }, local_agents: locals('drafter', 'payer', 'closer') }),
      agent({ id: 'drafter' }),
      charger('payer', 'pay-1'),
      agent({ id: 'closer', model: { turns: [{ content: 'closed after {{input}}' }] } }),
    ]),
    'order 7',
  );
  await statusWhen(h, id, 'the member approval at the root', (s) => s.pending_decisions?.length === 1);

  const st = await h.loom(['status', id]);
  expect(st.code).toBe(0);
  expect(st.out).toContain('pending in members (1):');
  expect(st.out).toMatch(/ {2}step-2-payer:pay-1 {2}waited \d+s {2}step-2-payer · payer · approval pay-1: charge \{"text":"payer paid","card":"\[redacted\]","amount":9\}/);
  expect(st.out).not.toContain('4111');
  const stj = json(await h.loom(['status', id, '--json']));
  expect(stj.pending_decisions).toEqual([
    expect.objectContaining({ kind: 'approval', workflow_id: `${id}/step-2-payer`, path: ['step-2-payer'], agent_id: 'payer', call_id: 'pay-1', tool: 'charge', arguments: { text: 'payer paid', card: '[redacted]', amount: 9 } }),
  ]);

  const ok = await h.loom(['approve', id, 'pay-1']);
  expect(ok).toMatchObject({ code: 0, out: `approved pay-1 (in ${id}/step-2-payer)\n` });
  const res = (await h.handle(id).result()) as AgentRunResult;
  expect(String(res.output)).toContain('payer paid');
  const after = await h.loom(['status', id]);
  expect(after.out).not.toContain('pending in members');
});

test('a fan-out with two members waiting on the same call id: both listed; the bare id is refused with both paths; PATH:CALL_ID answers each', async () => {
  const id = await start(
    bundle('fan', [
      agent({ id: 'fan', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'left' }, { agent: 'right' }], output_from: 'merge' } }, local_agents: locals('left', 'right') }),
      charger('left', 'c1'),
      charger('right', 'c1'),
    ]),
    'split',
  );
  await statusWhen(h, id, 'both branch approvals at the root', (s) => s.pending_decisions?.length === 2);
  const st = await h.loom(['status', id]);
  expect(st.out).toContain('pending in members (2):');
  expect(st.out).toContain('agent-1-left:c1');
  expect(st.out).toContain('agent-2-right:c1');

  const amb = await h.loom(['approve', id, 'c1']);
  expect(amb.code).toBe(1);
  expect(amb.err).toBe(`loom approve: refused: call id 'c1' is pending in 2 runs of ${id}; name one as PATH:CALL_ID: agent-1-left:c1, agent-2-right:c1\n`);
  const unknown = await h.loom(['reject', id, 'c9', '--reason', 'no']);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain(`no pending approval 'c9' in the tree of ${id}; pending: agent-1-left:c1, agent-2-right:c1`);

  const right = await h.loom(['approve', id, 'agent-2-right:c1']);
  expect(right).toMatchObject({ code: 0, out: `approved c1 (in ${id}/agent-2-right)\n` });
  await statusWhen(h, id, 'one approval left', (s) => s.pending_decisions?.length === 1);
  // Now unique in the tree: the bare call id is enough.
  const left = await h.loom(['approve', id, 'c1']);
  expect(left).toMatchObject({ code: 0, out: `approved c1 (in ${id}/agent-1-left)\n` });
  const res = (await h.handle(id).result()) as AgentRunResult;
  expect(res.output).toEqual({ left: 'left paid', right: 'right paid' });
}, 120_000);

test('a react root answers its own call as before (no path)', async () => {
  const id = await start(bundle('solo', [charger('solo', 's1')]), 'one');
  await statusWhen(h, id, 'the root\'s own approval', (s) => s.pending_approvals.length === 1);
  const ok = await h.loom(['approve', id, 's1']);
  expect(ok).toMatchObject({ code: 0, out: 'approved s1\n' });
  expect(((await h.handle(id).result()) as AgentRunResult).output).toBe('solo paid');
});

test('loom inbox lists every decision in every open tree with the command that answers it (filters, --json); the printed commands answer them; loom list --tree shows members under their root', async () => {
  const pipe = await start(
    bundle('inbox-pipe', [
      agent({ id: 'inbox-pipe', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'drafter' }, { agent: 'inbox-payer' }], output_from: 'inbox-payer' } }, local_agents: locals('drafter', 'inbox-payer') }),
      agent({ id: 'drafter' }),
      charger('inbox-payer', 'pay-1'),
    ]),
    'order 8',
  );
  const fan = await start(
    bundle('inbox-fan', [
      agent({ id: 'inbox-fan', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'left' }, { agent: 'right' }], output_from: 'merge' } }, local_agents: locals('left', 'right') }),
      charger('left', 'c1'),
      charger('right', 'c1'),
    ]),
    'split',
  );
  await statusWhen(h, pipe, 'the pipeline approval at its root', (s) => s.pending_decisions?.length === 1);
  await statusWhen(h, fan, 'both fan-out approvals at their root', (s) => s.pending_decisions?.length === 2);

  const ours = (rows: InboxEntry[]) => rows.filter((r) => r.root_workflow_id === pipe || r.root_workflow_id === fan);
  const all = ours(json(await h.loom(['inbox', '--json'])));
  expect(all.map((r) => [r.root_workflow_id, r.ref, r.agent_id, r.answer[0]]).sort()).toEqual([
    [fan, 'agent-1-left:c1', 'left', `loom approve ${fan} agent-1-left:c1`],
    [fan, 'agent-2-right:c1', 'right', `loom approve ${fan} agent-2-right:c1`],
    [pipe, 'step-2-inbox-payer:pay-1', 'inbox-payer', `loom approve ${pipe} step-2-inbox-payer:pay-1`],
  ]);
  const payer = all.find((r) => r.root_workflow_id === pipe)!;
  expect(payer).toMatchObject({ kind: 'approval', tool: 'charge', arguments: { card: '[redacted]' }, answer: [expect.any(String), `loom reject ${pipe} step-2-inbox-payer:pay-1 --reason TEXT`] });
  expect(payer.waited_seconds).toBeGreaterThanOrEqual(0);
  expect(ours(json(await h.loom(['inbox', '--agent', 'inbox-payer', '--json']))).map((r) => r.ref)).toEqual(['step-2-inbox-payer:pay-1']);
  expect(ours(json(await h.loom(['inbox', '--older-than', '86400', '--json'])))).toEqual([]);
  expect(ours(json(await h.loom(['inbox', '--queue', 'ops', '--json'])))).toEqual([]);
  const text = await h.loom(['inbox']);
  expect(text.code).toBe(0);
  expect(text.out).toContain(`${pipe}  step-2-inbox-payer:pay-1  waited `);
  expect(text.out).toContain(`    loom approve ${pipe} step-2-inbox-payer:pay-1\n    loom reject ${pipe} step-2-inbox-payer:pay-1 --reason TEXT\n`);

  const tree = await h.loom(['list', '--agent', 'inbox-pipe', '--tree']);
  expect(tree.code).toBe(0);
  expect(tree.out).toMatch(new RegExp(`^${pipe} +agfSequentialWorkflow +RUNNING +running\\n {2}step-1-drafter +agfReactWorkflow +COMPLETED +completed\\n {2}step-2-inbox-payer +agfReactWorkflow +RUNNING +waiting_for_approval\\n`, 'm'));
  const treeJson = json(await h.loom(['list', '--agent', 'inbox-fan', '--tree', '--json']));
  expect(treeJson.find((r: any) => r.workflow_id === fan).members.map((m: any) => [m.workflow_id, m.agent_status])).toEqual([
    [`${fan}/agent-1-left`, 'waiting_for_approval'],
    [`${fan}/agent-2-right`, 'waiting_for_approval'],
  ]);
  expect((await h.loom(['list', '--all', '--tree'])).code).toBe(2);

  // The inbox's own commands answer each decision.
  for (const r of all) {
    const [cmd, ...rest] = r.answer[0].split(' ');
    expect(cmd).toBe('loom');
    expect((await h.loom(rest)).code).toBe(0);
  }
  expect(((await h.handle(pipe).result()) as AgentRunResult).output).toBe('inbox-payer paid');
  expect(((await h.handle(fan).result()) as AgentRunResult).output).toEqual({ left: 'left paid', right: 'right paid' });
  expect(ours(json(await h.loom(['inbox', '--json'])))).toEqual([]);
}, 120_000);

test('loom inbox does not hang on a tree no worker answers: it lists the rest and names that root on stderr within the query deadline', async () => {
  // A run holding a decision (per its search attributes) on a task queue nobody polls: its status query can never be answered.
  const b = bundle('inbox-orphan', [agent({ id: 'inbox-orphan' })]);
  const args: RunAgentInput = { bundle: await store(b), agent_id: 'inbox-orphan', input: 'x' };
  const orphan = `inbox-orphan-${randomUUID().slice(0, 8)}`;
  const handle = await h.t.client.workflow.start(workflowTypeFor(b.agents['inbox-orphan'])!, {
    taskQueue: `nobody-polls-${randomUUID().slice(0, 8)}`,
    workflowId: orphan,
    args: [args],
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: ['inbox-orphan'], [SEARCH_ATTRIBUTES.pattern]: ['agf.react'], [SEARCH_ATTRIBUTES.status]: ['waiting_for_approval'] },
  });
  try {
    await statusVisible(orphan);
    const started = Date.now();
    const res = await h.loom(['inbox', '--json'], { env: { LOOM_INBOX_QUERY_TIMEOUT_SECONDS: '1' } });
    expect(res.code).toBe(0);
    expect(json<InboxEntry[]>(res).some((r) => r.root_workflow_id === orphan)).toBe(false);
    expect(res.err).toMatch(new RegExp(`did not answer the status query within 1 s \\(is a worker polling their task queue\\?\\); their decisions are not listed: .*${orphan}`));
    expect(Date.now() - started).toBeLessThan(20_000);
  } finally {
    await handle.terminate('test over');
  }
}, 60_000);

/** The run is in visibility (the inbox lists runs from there). */
async function statusVisible(id: string): Promise<void> {
  await until(`${id} to appear in visibility`, async () => {
    for await (const wf of h.t.client.workflow.list({ query: `WorkflowId = '${id}'` })) if (wf.workflowId === id) return true;
    return undefined;
  }, 20_000, 200);
}
