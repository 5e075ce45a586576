/**
 * The `decide` update, for operators with only the Temporal CLI or Web UI: sent to any run (the
 * root), it names a decision of that tree as `loom inbox` prints it; the validator refuses one that
 * is not pending there (with what is), and the handler checks corrected arguments against the
 * holder's tool, sends the holder its approve / reject / respond signal (an update cannot be sent
 * from a workflow, nor a signal to itself: this run's own decisions are recorded directly) and
 * returns once the decision has left this run's list (the holder reported it answered) or after a
 * minute. New commands only when a `decide` arrives: no patch.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { STORE_ACTIVITY } from '../activity-options';
import type { Decision } from '../../runtime/approvals';
import type { Activities } from '../../activities';
import type { DecideArgs, PendingDecision, RespondArgs, RunAgentInput } from '../../shared/contract';
import { DecideArgsSchema, PAYLOAD_SHAPES } from '../../shared/contract';
import { approveSignal, decideUpdate, rejectSignal, respondSignal } from '../../shared/definitions';
import { replacementProblem, resolveDecide } from '../../runtime/decisions';
import { validatedPayload } from './payloads';
import { PATCHES } from '../patches';

// Checks for `decide` (corrected arguments against the holder's tool schema), as react's approveCall does.
const checks = proxyActivities<Activities>(STORE_ACTIVITY);

/** What `decide` needs of its run. */
export interface DecideHost {
  readonly input: RunAgentInput;
  /** Every decision pending in the run's tree. */
  decisions(): PendingDecision[];
  /** Answer this run's own human wait; false when it does not wait on that queue. */
  answerHuman(a: RespondArgs): boolean;
  /** Record an answer to one of this run's own pending calls (react's book); undefined when the run holds none. */
  decideOwn?: (callId: string, d: Decision) => boolean;
}

/** Register the `decide` update and its validator. */
export function registerDecideUpdate(host: DecideHost): void {
  setHandler(decideUpdate, (a) => decide(host, a), {
    validator: (raw) => {
      const a = validatedPayload(DecideArgsSchema, raw, PAYLOAD_SHAPES.decide, 'decide');
      const r = resolveDecide(host.decisions(), a, `the tree of ${workflowInfo().workflowId}`);
      if (!r.ok) throw new Error(r.message);
      if (r.decision.workflow_id === workflowInfo().workflowId && r.decision.kind !== 'escalation' && !host.decideOwn) {
        throw new Error(`${r.decision.call_id} is held by this run itself: answer it with the approveCall / rejectCall update on this run`);
      }
    },
  });
}

/** Forward the answer to the run holding the decision, then wait until it is no longer listed. */
async function decide(host: DecideHost, a: DecideArgs): Promise<string> {
  const r = resolveDecide(host.decisions(), a, `the tree of ${workflowInfo().workflowId}`);
  if (!r.ok) throw ApplicationFailure.nonRetryable(r.message, 'UnknownDecision');
  const d = r.decision;
  const id = d.call_id ?? d.queue ?? '';
  // `tool` (the call replacement of an approval): checked against the holder's registry tools and the replacement's schema.
  const replace = a.decision === 'approve' && a.tool !== undefined ? { tool: a.tool } : {};
  if (replace.tool !== undefined) {
    const holder = await checks.loadAgent({ bundle: host.input.bundle, agent_id: d.agent_id });
    const problem = replacementProblem(d, replace.tool, holder.tools.refs.map((t) => t.tool_id));
    if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidReplacement');
  }
  if (a.decision === 'approve' && (a.args || replace.tool !== undefined) && d.kind === 'approval') {
    const chk = await checks.checkToolArgs({ bundle: host.input.bundle, agent_id: d.agent_id, tool: replace.tool ?? d.tool ?? '', args: a.args ?? {} });
    if (!chk.ok) throw ApplicationFailure.nonRetryable(`${replace.tool !== undefined ? `replacement ${replace.tool}` : 'corrected arguments'} refused for ${id}: ${chk.error}`, 'InvalidArguments');
  }
  const by = a.by ? { by: a.by } : {};
  const respond = { queue: id, ...(a.close ? { close: true, ...(a.reason ? { reason: a.reason } : {}) } : { output: a.output ?? null }), ...by };
  if (d.workflow_id === workflowInfo().workflowId) {
    const taken = a.decision === 'respond' ? host.answerHuman(respond) : host.decideOwn?.(id, a.decision === 'approve' ? { kind: 'approve', args: a.args, ...replace, ...by } : { kind: 'reject', reason: a.reason ?? '', ...by });
    if (!taken) throw ApplicationFailure.nonRetryable(`${id} was answered meanwhile`, 'UnknownDecision');
  } else {
    const holder = getExternalWorkflowHandle(d.workflow_id);
    if (a.decision === 'approve') await holder.signal(approveSignal, { call_id: id, ...(a.args ? { args: a.args } : {}), ...replace, ...by });
    else if (a.decision === 'reject') await holder.signal(rejectSignal, { call_id: id, reason: a.reason ?? '', ...by });
    else await holder.signal(respondSignal, respond);
  }
  const same = (x: PendingDecision) => x.workflow_id === d.workflow_id && x.kind === d.kind && (x.call_id ?? x.queue) === id && x.requested_at === d.requested_at;
  // The wait for the decision to leave the pending list is a timer the Web UI names (patched).
  const left = () => !host.decisions().some(same);
  const gone = patched(PATCHES.waitTimerSummary.id) ? await condition(left, '1 minute', { summary: `decision on ${id} to take effect (1 minute)` }) : await condition(left, '1 minute');
  const done = a.decision === 'approve' ? `approved ${id}${replace.tool !== undefined ? ` replaced by ${replace.tool}` : a.args ? ' with corrected arguments' : ''}` : a.decision === 'reject' ? `rejected ${id}` : a.close ? `closed the escalation on '${id}'` : `responded on '${id}'`;
  const where = d.workflow_id === workflowInfo().workflowId ? '' : ` in ${d.workflow_id}`;
  return `${done}${where}${gone ? '' : ' (sent; still listed as pending after a minute: see its status)'}`;
}
