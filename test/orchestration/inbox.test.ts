/**
 * Tree-wide pending decisions on a real dev server (issue 9): a decision waiting anywhere below a
 * run — a pipeline member, a member of a fan-out nested in a pipeline, a react run's own parallel
 * calls — is in the run's `status.pending_decisions` (path, agent, tool, redacted arguments,
 * requested_at) and in its Current Details (the Web UI; read through the SDK's built-in
 * `__temporal_workflow_metadata` query), and is gone once answered in the member that holds it.
 */
import type { CompiledAgent, CompiledTool, JsonSchema, ScriptedModelConfig, StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult, PendingDecision, RunStatus } from '../../src/shared/contract';
import { approveUpdate, respondEscalationUpdate, statusQuery } from '../../src/shared/definitions';
import type { WorkflowHandle } from '@temporalio/client';
import { agent, answers, bundle, locals } from './builders';
import { historyEvents } from '../helpers/history';
import { Harness, startHarness, waitFor } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness('inbox'); });
afterAll(async () => { await h?.close(); });

const CHARGE_SCHEMA: JsonSchema = { type: 'object', properties: { text: { type: 'string' }, card: { type: 'string' }, amount: { type: 'number' } }, required: ['text'] };
/** The builtin echo as `charge`: needs approval, `card` is sensitive. */
const CHARGE: CompiledTool = {
  tool_id: 'charge', version: '1.0.0', status: 'active', description: 'charge a card', kind: 'builtin', input_schema: CHARGE_SCHEMA,
  approval_required: true, sensitive_fields: ['card'], side_effects: true, builtin: { name: 'echo' },
};

/** A react member that calls `charge` (call ids `ids`, all in one turn) and then answers with the tool results. */
function charger(id: string, ids: string[]): CompiledAgent {
  const model: ScriptedModelConfig = {
    turns: [
      { tool_calls: ids.map((c, i) => ({ id: c, name: 'charge', arguments: { text: `${id}-${c}`, card: '4111-1111', amount: i + 1 } })) },
      { content: `${id} charged {{last_tool_result}}` },
    ],
  };
  return { ...agent({ id, model }), tools: { tool_choice: 'auto', refs: [CHARGE] } };
}

const statusOf = (wf: WorkflowHandle): Promise<RunStatus> => wf.query(statusQuery);
async function decisionsWhen(wf: WorkflowHandle, n: number): Promise<PendingDecision[]> {
  return waitFor(async () => {
    const s = await statusOf(wf);
    return s.pending_decisions?.length === n ? s.pending_decisions : undefined;
  }, `${n} pending decision(s) in ${wf.workflowId}`);
}
async function currentDetails(wf: WorkflowHandle): Promise<string> {
  const md = (await wf.query('__temporal_workflow_metadata')) as { currentDetails?: string };
  return md.currentDetails ?? '';
}

test('a 3-stage pipeline: the 2nd member\'s approval is in the root\'s status and Current Details, answered where it is held', async () => {
  const b = bundle('pipeline', [
    agent({
      id: 'pipeline',
      policy: { id: 'agf.sequential', config: { steps: [{ agent: 'drafter' }, { agent: 'payer' }, { agent: 'closer' }], output_from: 'closer' } },
      local_agents: locals('drafter', 'payer', 'closer'),
    }),
    agent({ id: 'drafter' }),
    charger('payer', ['pay-1']),
    agent({ id: 'closer', model: { turns: [{ content: 'closed: {{input}}' }] } }),
  ]);
  const wf = await h.start(b, 'order 7');
  const t0 = Date.now();
  const [dec] = await decisionsWhen(wf, 1);
  expect(dec).toEqual({
    kind: 'approval',
    workflow_id: `${wf.workflowId}/step-2-payer`,
    path: ['step-2-payer'],
    agent_id: 'payer',
    call_id: 'pay-1',
    tool: 'charge',
    arguments: { text: 'payer-pay-1', card: '[redacted]', amount: 1 },
    reason: 'tool charge has approval_required',
    requested_at: expect.any(String),
  });
  expect(Date.parse(dec.requested_at)).toBeLessThanOrEqual(Date.now());
  expect(Date.parse(dec.requested_at)).toBeGreaterThan(t0 - 60_000);
  // The member's own status redacts the sensitive field too (issue 11: src/governance/sensitive.ts).
  const member = h.t.client.workflow.getHandle(dec.workflow_id);
  expect((await statusOf(member)).pending_approvals.map((p) => p.arguments.card)).toEqual(['[redacted]']);
  const details = await waitFor(async () => ((await currentDetails(wf)).includes('pay-1') ? currentDetails(wf) : undefined), 'the root\'s Current Details to list pay-1');
  expect(details).toContain('Waiting on a human (1):');
  expect(details).toContain('step-2-payer · payer · approval pay-1: charge {"text":"payer-pay-1","card":"[redacted]","amount":1}');
  expect(details).not.toContain('4111');

  await member.executeUpdate(approveUpdate, { args: [{ call_id: 'pay-1' }] });
  const res = (await wf.result()) as AgentRunResult;
  expect(String(res.output)).toContain('closed:');
  expect(String(res.output)).toContain('payer charged');
  expect((await statusOf(wf)).pending_decisions).toEqual([]);
});

test('a react run with three pending approvals lists all three, in status and in Current Details', async () => {
  const b = bundle('triple', [charger('triple', ['t1', 't2', 't3'])]);
  const wf = await h.start(b, 'go');
  const ds = await decisionsWhen(wf, 3);
  // In the order the calls became ready (their argument checks are concurrent activities).
  expect(ds.map((d) => [d.path, d.call_id, d.workflow_id, d.arguments?.card]).sort((x, y) => String(x[1]).localeCompare(String(y[1])))).toEqual([
    [[], 't1', wf.workflowId, '[redacted]'],
    [[], 't2', wf.workflowId, '[redacted]'],
    [[], 't3', wf.workflowId, '[redacted]'],
  ]);
  const details = await waitFor(async () => {
    const d = await currentDetails(wf);
    return ['t1', 't2', 't3'].every((c) => d.includes(`approval ${c}:`)) ? d : undefined;
  }, 'Current Details to name t1, t2 and t3');
  expect(details).toContain('Waiting on a human (3):');
  for (const c of ['t1', 't2', 't3']) await wf.executeUpdate(approveUpdate, { args: [{ call_id: c }] });
  await wf.result();
  expect(await currentDetails(wf)).not.toContain('Waiting on a human');
});

test('nested: a fan-out inside a pipeline — both branches\' approvals reach the root with their full paths', async () => {
  const b = bundle('outer', [
    agent({
      id: 'outer',
      policy: { id: 'agf.sequential', config: { steps: [{ agent: 'intake' }, { agent: 'fan' }], output_from: 'fan' } },
      local_agents: locals('intake', 'fan'),
    }),
    agent({ id: 'intake' }),
    agent({
      id: 'fan',
      policy: { id: 'agf.parallel', config: { agents: [{ agent: 'left' }, { agent: 'right' }], output_from: 'merge' } },
      local_agents: locals('left', 'right'),
    }),
    charger('left', ['c1']),
    charger('right', ['c1']),
  ]);
  const wf = await h.start(b, 'split');
  const ds = await decisionsWhen(wf, 2);
  const byPath = Object.fromEntries(ds.map((d) => [d.path.join('/'), d]));
  expect(Object.keys(byPath).sort()).toEqual(['step-2-fan/agent-1-left', 'step-2-fan/agent-2-right']);
  expect(byPath['step-2-fan/agent-1-left']).toMatchObject({ workflow_id: `${wf.workflowId}/step-2-fan/agent-1-left`, agent_id: 'left', call_id: 'c1', tool: 'charge' });
  // The middle run (the fan-out) lists the same two, with paths relative to itself.
  const fan = h.t.client.workflow.getHandle(`${wf.workflowId}/step-2-fan`);
  expect((await decisionsWhen(fan, 2)).map((d) => d.path.join('/')).sort()).toEqual(['agent-1-left', 'agent-2-right']);

  // Answer in reverse order; each answer leaves the root's list at once.
  await h.t.client.workflow.getHandle(byPath['step-2-fan/agent-2-right'].workflow_id).executeUpdate(approveUpdate, { args: [{ call_id: 'c1' }] });
  const left = await decisionsWhen(wf, 1);
  expect(left.map((d) => d.path.join('/'))).toEqual(['step-2-fan/agent-1-left']);
  await h.t.client.workflow.getHandle(byPath['step-2-fan/agent-1-left'].workflow_id).executeUpdate(approveUpdate, { args: [{ call_id: 'c1' }] });
  const res = (await wf.result()) as AgentRunResult;
  expect(JSON.stringify(res.output)).toContain('left charged');
  expect(JSON.stringify(res.output)).toContain('right charged');
  expect((await statusOf(wf)).pending_decisions).toEqual([]);
});

test('a human-queue escalation three levels deep and a strategies route approval reach the root; the member histories hold the patch marker and the signal', async () => {
  const pattern: StrategiesPattern = {
    type: 'strategies',
    agents: [{ name: 'Builder', agent_id: 'm-builder' }, { name: 'Releaser', agent_id: 'm-releaser' }],
    config: { Selection: { Type: 'keyword', Routes: [
      { Keyword: 'SHIP', Agent: 'Releaser', SourceAgents: ['Builder'], RequireHumanApproval: true },
      { Keyword: 'RELEASED', Agent: 'Releaser', SourceAgents: ['Releaser'] },
    ] } } as unknown as StrategiesPattern['config'],
  };
  const b = bundle('deep', [
    agent({
      id: 'deep',
      policy: { id: 'agf.parallel', config: { agents: [{ agent: 'middle' }, { agent: 'team' }], output_from: 'merge' } },
      local_agents: locals('middle', 'team'),
    }),
    agent({
      id: 'middle',
      policy: { id: 'agf.sequential', config: { steps: [{ agent: 'desk' }], output_from: 'desk' } },
      local_agents: locals('desk'),
    }),
    agent({
      id: 'desk',
      model: { turns: [{ tool_calls: [{ id: 'h1', name: 'escalate_to_human', arguments: { reason: 'needs a person' } }] }] },
      escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'ops' } }],
      max_turns: 3,
    }),
    agent({ id: 'team', model: answers('orchestrator'), pattern }),
    agent({ id: 'm-builder', model: answers('Built.\nSHIP') }),
    agent({ id: 'm-releaser', model: answers('v1.0\nRELEASED') }),
  ]);
  const wf = await h.start(b, 'go');
  const ds = await decisionsWhen(wf, 2);
  const esc = ds.find((d) => d.kind === 'escalation')!;
  expect(esc).toEqual({
    kind: 'escalation', workflow_id: `${wf.workflowId}/agent-1-middle/step-1-desk`, path: ['agent-1-middle', 'step-1-desk'], agent_id: 'desk',
    queue: 'ops', reason: expect.stringContaining('needs a person'), requested_at: expect.any(String),
  });
  const route = ds.find((d) => d.kind === 'route_approval')!;
  expect(route).toMatchObject({ workflow_id: `${wf.workflowId}/agent-2-team`, path: ['agent-2-team'], agent_id: 'team', call_id: 'route-1', tool: 'route', arguments: { keyword: 'SHIP' } });
  const details = await currentDetails(wf);
  expect(details).toContain("agent-1-middle/step-1-desk · desk · human queue 'ops'");
  expect(details).toContain('agent-2-team · team · route approval route-1: route');

  // The member that reported holds the patch marker, then the signal to its parent.
  const deskEvents = await historyEvents(h.t.client.workflow.getHandle(esc.workflow_id));
  const patchId = (e: (typeof deskEvents)[number]): string | undefined => {
    const data = e.markerRecordedEventAttributes?.markerName === 'core_patch' ? e.markerRecordedEventAttributes.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id?: string }).id : undefined;
  };
  const marker = deskEvents.findIndex((e) => patchId(e) === 'tree-pending-decisions');
  const signal = deskEvents.findIndex((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'descendantDecisions');
  expect(marker).toBeGreaterThan(0);
  expect(signal).toBeGreaterThan(marker);
  expect(deskEvents[signal].signalExternalWorkflowExecutionInitiatedEventAttributes?.workflowExecution?.workflowId).toBe(`${wf.workflowId}/agent-1-middle`);

  await h.t.client.workflow.getHandle(esc.workflow_id).executeUpdate(respondEscalationUpdate, { args: [{ queue: 'ops', output: 'handled by a person' }] });
  expect((await decisionsWhen(wf, 1))[0].kind).toBe('route_approval');
  await h.t.client.workflow.getHandle(route.workflow_id).executeUpdate(approveUpdate, { args: [{ call_id: 'route-1' }] });
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toEqual({ middle: 'handled by a person', team: 'v1.0\nRELEASED' });
  expect((await statusOf(wf)).pending_decisions).toEqual([]);
});
