/**
 * Escalation of a react run (the Agent Definition Specification's "escalation rules"): a guardrail that escalates, or the
 * model calling the `escalate_to_human` runtime tool (agents with an `on: model_decision` rule),
 * ends the loop; `orchestration.escalation` then decides: target agent → a child run whose output
 * is the run's output; target human_queue → waiting_for_human until an operator answers with
 * `respond` / `respondEscalation`, or closes it (the run fails).
 */
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { AgentRunResult } from '../../shared/contract';
import { ESCALATE_TOOL } from '../../runtime/agent-view';
import type { ToolCall } from '../../runtime/messages';
import type { EscalationEvent } from '../../orchestration/escalation';
import { describeEscalation } from '../../orchestration/escalation';
import { runChildAgent } from '../child';
import { failureMessage } from '../shell/failures';
import { runEscalation } from '../shell/human-queue';
import type { ReactRun } from './context';
import { noteAudit } from './governance';

/** Thrown inside the loop when the run must escalate; handled outside the loop (and its deadline). */
export class EscalationRequest extends Error {
  constructor(readonly event: EscalationEvent, readonly detail: string) {
    super(`${describeEscalation(event)}: ${detail}`);
  }
}

export function guardrailEvent(guardrail: string | undefined): EscalationEvent {
  return { on: 'guardrail', guardrail: guardrail ?? '' };
}


/** The model asked to escalate (one of this turn's calls is escalate_to_human). */
export function modelEscalation(rx: ReactRun, calls: ToolCall[]): EscalationRequest | undefined {
  const esc = rx.escalateTool ? calls.find((c) => c.name === ESCALATE_TOOL) : undefined;
  if (!esc) return undefined;
  const why = String((esc.arguments as Record<string, unknown> | undefined)?.reason ?? '').trim();
  return new EscalationRequest({ on: 'model_decision' }, why || 'no reason given');
}

/**
 * Apply orchestration.escalation (outside the loop and its deadline: the agent's work is over).
 * Target agent: its output is the run's output; target human_queue: the operator's output is,
 * and a closed escalation fails the run.
 */
export async function escalate(rx: ReactRun, req: EscalationRequest): Promise<AgentRunResult> {
  const { agent: ag, input, shell } = rx;
  const what = describeEscalation(req.event);
  const outcome = await runEscalation(ag.orchestration.escalation ?? [], req.event, req.detail, {
    warn: (m) => shell.warn(m),
    waitForHuman: (queue, reason) => shell.waitForHuman(queue, reason),
    runAgent: async (agentId, reason) => {
      shell.details(`escalated to agent ${agentId}: ${reason}`);
      try {
        const res = await runChildAgent({
          bundle: input.bundle,
          agent_id: agentId,
          workflowType: ag.escalation_agent_types?.[agentId] ?? 'agfReactWorkflow',
          input: input.input,
          role: `escalation-${agentId}`,
          options: {
            approval_timeout_seconds: input.options?.approval_timeout_seconds,
            context: { escalation: { trigger: req.event.on, reason, from_agent: ag.agent_id } },
          },
        });
        shell.addUsage(res.usage);
        return res;
      } catch (e) {
        if (isCancellation(e)) throw e;
        throw ApplicationFailure.nonRetryable(`escalation agent '${agentId}' failed (${what}): ${failureMessage(e)}`, 'EscalationFailed');
      } finally {
        shell.memberClosed(`escalation-${agentId}`);
      }
    },
  });
  const trigger = req.event.on === 'guardrail' ? `guardrail ${req.event.guardrail}` : req.event.on;
  if (!outcome.handled) noteAudit(rx, { kind: 'escalation', trigger, detail: req.detail, outcome: 'no matching rule: the run fails' });
  else {
    const by = 'by' in outcome && outcome.by ? ` by ${outcome.by}` : '';
    const result = outcome.target === 'agent' ? 'answered by the agent' : 'closed' in outcome ? `closed${by}${outcome.reason ? `: ${outcome.reason}` : ''}` : `answered${by}`;
    noteAudit(rx, { kind: 'escalation', trigger, detail: req.detail, target: `${outcome.target} ${outcome.id}`, outcome: result });
  }
  if (!outcome.handled) {
    const ev = req.event.on === 'guardrail' ? `{on: guardrail, guardrail: ${req.event.guardrail}}` : `{on: ${req.event.on}}`;
    throw ApplicationFailure.nonRetryable(`${what} (${req.detail}), but no orchestration.escalation rule matches ${ev}: the run fails`, 'EscalationUnmatched');
  }
  if (outcome.target === 'agent') {
    for (const w of outcome.result.warnings ?? []) shell.warn(`escalation-${outcome.id}: ${w}`);
    return shell.result(outcome.result.output);
  }
  if ('closed' in outcome) {
    throw ApplicationFailure.nonRetryable(
      `escalation on human queue '${outcome.id}' was closed${outcome.by ? ` by ${outcome.by}` : ''}: ${outcome.reason ?? 'no reason given'} (${what})`,
      'EscalationClosed',
    );
  }
  return shell.result(outcome.output);
}
