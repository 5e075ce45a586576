import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { ApproveArgs, RejectArgs } from '../../src/shared/contract';
import { storeTestBundle } from './builders';
import { builtin, compileAgent, scripted, type FrontMatter } from '../helpers/definitions';
import { Harness, scheduledActivities, startHarness, waitForStatus } from './harness';
import {
  activityCompletedEventIds,
  activityEventIds,
  activityRunning,
  activityTypes,
  historyEvents,
  signalEventIds,
  waitForSettledHistory,
} from '../helpers/history';
import { until } from '../helpers/wait';

let H: Harness;
beforeAll(async () => {
  H = await startHarness('react-approval');
});
afterAll(async () => H.close());

/**
 * A model that asks for arithmetic once and then reports the tool result verbatim; the tool needs
 * approval unless `toolApproval` is false; `front` adds front-matter fields. Compiled from definitions.
 */
function approvalAgent(id: string, front: FrontMatter = {}, toolApproval = true) {
  return compileAgent({
    agent_id: id,
    model: scripted({
      turns: [
        { tool_calls: [{ id: 'mul-1', name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul' } }] },
        { content: 'tool said: {{last_tool_result}}' },
      ],
    }),
    tools: [builtin('arithmetic', { approval_required: toolApproval })],
    front,
  }).bundle;
}

test('approve by signal runs the call; status lists only the ready call while waiting', async () => {
  const bundle = await storeTestBundle(approvalAgent('appr'));
  const h = await H.start({ bundle, agent_id: 'appr', input: 'go' });
  const st = await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  expect(st.pending_approvals).toHaveLength(1);
  expect(st.pending_approvals[0]).toMatchObject({ call_id: 'mul-1', tool: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul' } });
  expect(st.pending_approvals[0].reason).toMatch(/approval_required/);
  const waiting = await waitForSettledHistory(h, () => true, 'the run to wait for the approval');
  expect(activityTypes(waiting)).not.toContain('runTool');
  await h.signal<[ApproveArgs]>('approve', { call_id: 'mul-1' });
  expect((await h.result()).output).toBe('tool said: 42');
  const ev = await historyEvents(h);
  expect(activityEventIds(ev, 'runTool')[0]).toBeGreaterThan(signalEventIds(ev, 'approve')[0]);
});

test('reject by update: the model sees the reason; unknown call ids are refused clearly', async () => {
  const bundle = await storeTestBundle(approvalAgent('rej'));
  const h = await H.start({ bundle, agent_id: 'rej', input: 'go' });
  await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  await expect(h.executeUpdate<string, [RejectArgs]>('rejectCall', { args: [{ call_id: 'nope', reason: 'x' }] })).rejects.toThrow(
    WorkflowUpdateFailedError,
  );
  const err = await h.executeUpdate<string, [RejectArgs]>('rejectCall', { args: [{ call_id: 'nope', reason: 'x' }] }).catch((e) => e);
  expect(String(err.cause?.message ?? err.message)).toMatch(/no pending approval with call id 'nope'; pending: mul-1/);
  const ok = await h.executeUpdate<string, [RejectArgs]>('rejectCall', { args: [{ call_id: 'mul-1', reason: 'too risky today' }] });
  expect(ok).toMatch(/rejected mul-1/);
  const res = await h.result();
  expect(res.output).toMatch(/tool said: error: call rejected by .*too risky today/);
  expect(await scheduledActivities(h)).not.toContain('runTool');
});

test('approve with corrected args by update (re-validated: invalid corrections are refused)', async () => {
  const bundle = await storeTestBundle(approvalAgent('corr'));
  const h = await H.start({ bundle, agent_id: 'corr', input: 'go' });
  await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  const bad = await h
    .executeUpdate<string, [ApproveArgs]>('approveCall', { args: [{ call_id: 'mul-1', args: { a: 1, b: 2, op: 'pow' } }] })
    .catch((e) => e);
  expect(bad).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(String(bad.cause?.message)).toMatch(/corrected arguments refused .*op/);
  const st = await h.query('status');
  expect((st as { pending_approvals: unknown[] }).pending_approvals).toHaveLength(1);
  const msg = await h.executeUpdate<string, [ApproveArgs]>('approveCall', { args: [{ call_id: 'mul-1', args: { a: 10, b: 5, op: 'add' } }] });
  expect(msg).toMatch(/approved mul-1 with corrected arguments/);
  expect((await h.result()).output).toBe('tool said: 15');
});

test('approval timeout rejects the call with "approval timed out"', async () => {
  const bundle = await storeTestBundle(approvalAgent('tmo'));
  const h = await H.start({ bundle, agent_id: 'tmo', input: 'go', options: { approval_timeout_seconds: 1 } });
  const res = await h.result();
  expect(res.output).toMatch(/approval timed out/);
  expect(res.warnings.join('\n')).toMatch(/timed out/);
});

test('on_approval_timeout escalate: the call stays pending on the human queue until an operator answers', async () => {
  const a = approvalAgent('esc', { orchestration: { escalation: [{ on: 'timeout', target: { type: 'human_queue', id: 'approvals-desk' } }] } });
  const bundle = await storeTestBundle(a);
  const h = await H.start({ bundle, agent_id: 'esc', input: 'go', options: { approval_timeout_seconds: 1, on_approval_timeout: 'escalate' } });
  const st = await waitForStatus(h, (s) => s.warnings.some((w) => /escalated to human queue 'approvals-desk'/.test(w)));
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals.map((p) => p.call_id)).toEqual(['mul-1']);
  const sa = (await h.describe()).searchAttributes;
  expect(sa.EscalationQueue).toEqual(['approvals-desk']);
  expect(sa.AgentStatus).toEqual(['waiting_for_human']);
  await h.executeUpdate('approveCall', { args: [{ call_id: 'mul-1', by: 'ops' }] });
  expect((await h.result()).output).toBe('tool said: 42');
  const after = (await h.describe()).searchAttributes;
  expect(after.EscalationQueue ?? []).toEqual([]);
  expect(after.AgentStatus).toEqual(['completed']);
});

test('guardrails.tool_calls.require_user_confirmation_for and policies.require_human_approval also gate calls', async () => {
  const a = approvalAgent('confirm', { guardrails: { tool_calls: { require_user_confirmation_for: ['arithmetic'] } } }, false);
  const h = await H.start({ bundle: await storeTestBundle(a), agent_id: 'confirm', input: 'go' });
  const st = await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  expect(st.pending_approvals[0].reason).toMatch(/require_user_confirmation_for/);
  await h.signal('approve', { call_id: 'mul-1' });
  expect((await h.result()).output).toBe('tool said: 42');

  const b = approvalAgent('hap', { policies: { require_human_approval: true } }, false);
  const h2 = await H.start({ bundle: await storeTestBundle(b), agent_id: 'hap', input: 'go' });
  const st2 = await waitForStatus(h2, (s) => s.state === 'waiting_for_approval');
  expect(st2.pending_approvals[0].reason).toMatch(/require_human_approval/);
  await h2.signal('reject', { call_id: 'mul-1', reason: 'no' });
  expect((await h2.result()).output).toMatch(/rejected/);
});

test('pause then resume: nothing new starts while paused', async () => {
  const bundle = await storeTestBundle(approvalAgent('pause'));
  const h = await H.start({ bundle, agent_id: 'pause', input: 'go' });
  await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  await h.signal('pause');
  await h.signal('approve', { call_id: 'mul-1' });
  await waitForStatus(h, (s) => s.state === 'paused' && s.pending_approvals.length === 0);
  // The run has answered the pause and the approval (a workflow task completed after both and
  // nothing is scheduled): whatever it would start is in the history by now.
  const held = await waitForSettledHistory(h, (ev) => signalEventIds(ev, 'approve').length === 1, 'the run to answer the pause and the approval');
  // checkToolArgs validated the call before it was presented; the tool itself has not started.
  expect(activityTypes(held)).toEqual(['loadAgent', 'modelTurn', 'checkToolArgs']);
  await h.signal('resume');
  expect((await h.result()).output).toBe('tool said: 42');
  const ev = await historyEvents(h);
  expect(activityTypes(ev)).toEqual(['loadAgent', 'modelTurn', 'checkToolArgs', 'runTool', 'modelTurn']);
  // The tool was scheduled only after the resume was recorded.
  expect(activityEventIds(ev, 'runTool')[0]).toBeGreaterThan(signalEventIds(ev, 'resume')[0]);
});

test('paused from the start (signalWithStart): no model call until resume', async () => {
  const { bundle: compiled } = compileAgent({ agent_id: 'paused-start', model: scripted({ turns: [{ content: 'ok' }] }) });
  const bundle = await storeTestBundle(compiled);
  const h = await H.t.client.workflow.signalWithStart('agfReactWorkflow', {
    taskQueue: H.t.taskQueue,
    workflowId: `paused-start-${Date.now()}`,
    args: [{ bundle, agent_id: 'paused-start', input: 'x' }],
    signal: 'pause',
    signalArgs: [],
  });
  const st = await waitForStatus(h, (s) => s.state === 'paused' && s.version === '1.0.0');
  expect(st.turn).toBe(0);
  // The agent is loaded (version known) and the run has answered the load: nothing else was scheduled.
  const held = await waitForSettledHistory(h, (ev) => ev.some((e) => e.activityTaskCompletedEventAttributes), 'the run to load its agent and hold');
  expect(activityTypes(held)).toEqual(['loadAgent']);
  expect((await h.describe()).searchAttributes.AgentStatus).toEqual(['paused']);
  await h.signal('resume');
  expect((await h.result()).output).toBe('ok');
  const ev = await historyEvents(h);
  expect(activityEventIds(ev, 'modelTurn')[0]).toBeGreaterThan(signalEventIds(ev, 'resume')[0]);
});

test('cancel: the run ends cancelled while a tool call is in flight', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'cancel',
    model: scripted({ turns: [{ tool_calls: [{ name: 'sleep', arguments: { ms: 60000 } }] }, { content: 'never' }] }),
    tools: [builtin('sleep')],
  });
  const h = await H.start({ bundle: await storeTestBundle(compiled), agent_id: 'cancel', input: 'x' });
  await waitForStatus(h, (s) => s.tool_calls_made === 1);
  await until(async () => ((await activityRunning(h, 'runTool')) ? true : undefined), 'the sleep tool to run on the worker', 20000);
  await h.cancel();
  const err = await h.result().catch((e) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(err.cause).toBeInstanceOf(CancelledFailure);
  const d = await h.describe();
  expect(d.status.name).toBe('CANCELLED');
  expect(d.searchAttributes.AgentStatus).toEqual(['cancelled']);
  // The in-flight tool call was asked to stop, and never completed.
  const ev = await historyEvents(h);
  expect(ev.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(true);
  expect(activityCompletedEventIds(ev, 'runTool')).toEqual([]);
});

test('a pause sent mid-turn holds across continue-as-new until resume', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'pause-can',
    model: scripted({ turns: [{ tool_calls: [{ name: 'sleep', arguments: { ms: 1500 } }] }, { content: 'finished' }] }),
    tools: [builtin('sleep')],
  });
  const h = await H.start({ bundle: await storeTestBundle(compiled), agent_id: 'pause-can', input: 'go', carried: { continue_as_new_every: 1 } });
  const firstRun = H.t.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId);
  await waitForStatus(h, (s) => s.tool_calls_made === 1);
  await h.signal('pause');
  // The tool call finishes while paused and the run has answered its result: no model turn and
  // no continue-as-new followed it.
  const held = await waitForSettledHistory(firstRun, (ev) => activityCompletedEventIds(ev, 'runTool').length === 1, 'the tool call to finish while paused');
  expect(activityTypes(held)).toEqual(['loadAgent', 'modelTurn', 'runTool']);
  expect(held.some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(false);
  expect((await h.describe()).status.name).toBe('RUNNING');
  expect((await h.query<{ state: string }>('status')).state).toBe('paused');
  await h.signal('resume');
  expect((await h.result()).output).toBe('finished');
  // The first run handed over to the next one only after the resume.
  const first = await historyEvents(firstRun);
  const handover = first.find((e) => e.workflowExecutionContinuedAsNewEventAttributes);
  expect(handover).toBeDefined();
  expect(Number(handover!.eventId)).toBeGreaterThan(signalEventIds(first, 'resume')[0]);
});

test('a run cancelled while waiting for approval lists nothing left to approve', async () => {
  const h = await H.start({ bundle: await storeTestBundle(approvalAgent('cancel-wait')), agent_id: 'cancel-wait', input: 'go' });
  await waitForStatus(h, (s) => s.state === 'waiting_for_approval');
  await h.cancel();
  await expect(h.result()).rejects.toThrow();
  const st = await h.query<{ state: string; pending_approvals: unknown[] }>('status');
  expect(st.state).toBe('cancelled');
  expect(st.pending_approvals).toEqual([]);
});
