/**
 * Escalation plumbing shared by the react runtime and the orchestration workflows (the Agent Definition Specification's
 * "escalation rules"): the `respond` signal / `respondEscalation` update a run waiting on a human
 * queue answers to (HumanQueue), and the dispatch of a matched rule (runEscalation): target
 * `agent` runs that agent, target `human_queue` waits for an operator. Status and search
 * attributes around the wait are the run shell's (RunShell.waitForHuman).
 */
import { condition, log, setHandler } from '@temporalio/workflow';
import type { EscalationRule, JsonValue } from '../../compiled/types';
import type { AgentRunResult, RespondArgs } from '../../shared/contract';
import { PAYLOAD_SHAPES, RespondArgsSchema } from '../../shared/contract';
import { isObject, signalPayload, validatedPayload } from './payloads';
import { respondEscalationUpdate, respondSignal } from '../../shared/definitions';
import { describeEscalation, EscalationEvent, matchEscalation } from '../../orchestration/escalation';

/** Human response to an escalation. */
export type HumanResponse = { kind: 'output'; output: JsonValue; by?: string } | { kind: 'closed'; by?: string; reason?: string };

function toResponse(a: RespondArgs): HumanResponse {
  if (a.close) return { kind: 'closed', by: a.by, ...(a.reason ? { reason: a.reason } : {}) };
  return { kind: 'output', output: a.output ?? null, by: a.by };
}

/**
 * The respond handlers and the waiting state. Construct it while registering the workflow's other
 * handlers (first thing in the workflow); `wait(queue)` blocks until an operator answers on it.
 */
export class HumanQueue {
  private queue: string | undefined;
  private response: HumanResponse | undefined;

  /** `warn`: a run warning (a respond signal whose payload does not fit its schema). */
  constructor(warn: (message: string) => void) {
    setHandler(respondSignal, (raw) => {
      // Before the check the handler acted on any object (it read a.queue, a.close, a.output).
      const a = signalPayload(RespondArgsSchema, raw, PAYLOAD_SHAPES.respond, 'respond', warn, isObject);
      if (!a) return;
      if (this.queue !== undefined && a.queue === this.queue) this.response = toResponse(a);
      else log.warn('respond signal ignored: not waiting on that queue', { queue: a.queue, waiting: this.queue });
    });
    setHandler(
      respondEscalationUpdate,
      (a: RespondArgs) => {
        this.response = toResponse(a);
        return { accepted: true as const, queue: a.queue };
      },
      {
        validator: (raw: unknown) => {
          const a = validatedPayload(RespondArgsSchema, raw, PAYLOAD_SHAPES.respond, 'respondEscalation');
          if (this.queue === undefined) throw new Error('this run is not waiting on a human queue');
          if (a.queue !== this.queue) throw new Error(`this run waits on queue '${this.queue}', not '${a.queue}'`);
        },
      },
    );
  }

  /** Answer this run's own wait (the root's `decide` update); false when it does not wait on `a.queue`. */
  answer(a: RespondArgs): boolean {
    if (this.queue === undefined || a.queue !== this.queue || this.response !== undefined) return false;
    this.response = toResponse(a);
    return true;
  }

  /** The queue this run waits on, if any. */
  get waitingOn(): string | undefined {
    return this.queue;
  }

  async wait(queue: string): Promise<HumanResponse> {
    this.queue = queue;
    this.response = undefined;
    await condition(() => this.response !== undefined);
    const r = this.response!;
    this.queue = undefined;
    this.response = undefined;
    return r;
  }
}

export type EscalationOutcome =
  | { handled: false }
  | { handled: true; target: 'agent'; id: string; result: AgentRunResult }
  | { handled: true; target: 'human_queue'; id: string; output: JsonValue; by?: string }
  | { handled: true; target: 'human_queue'; id: string; closed: true; by?: string; reason?: string };

export interface EscalationDeps {
  /** Run the target agent (a child workflow) for this escalation. */
  runAgent(agentId: string, reason: string, rule: EscalationRule): Promise<AgentRunResult>;
  /** Wait for an operator on `queue` (the caller sets status / search attributes around HumanQueue.wait). */
  waitForHuman(queue: string, reason: string): Promise<HumanResponse>;
  warn(message: string): void;
}

/** `describeEscalation(event)` plus the detail: the reason shown to operators and in warnings. */
export function escalationReason(event: EscalationEvent, detail?: string): string {
  return `${describeEscalation(event)}${detail ? `: ${detail}` : ''}`;
}

/**
 * Apply `rules` to `event` (top to bottom, first match) and carry out the matched rule's target.
 * No matching rule: `{ handled: false }` (the caller fails as it would without escalation).
 */
export async function runEscalation(rules: EscalationRule[] | undefined, event: EscalationEvent, detail: string | undefined, deps: EscalationDeps): Promise<EscalationOutcome> {
  const rule = matchEscalation(rules, event);
  if (!rule) return { handled: false };
  const reason = escalationReason(event, detail);
  if (rule.target.type === 'agent') {
    deps.warn(`escalated to agent '${rule.target.id}' (${reason})`);
    const result = await deps.runAgent(rule.target.id, reason, rule);
    return { handled: true, target: 'agent', id: rule.target.id, result };
  }
  deps.warn(`escalated to human queue '${rule.target.id}' (${reason})`);
  const r = await deps.waitForHuman(rule.target.id, reason);
  if (r.kind === 'closed') {
    deps.warn(`escalation on '${rule.target.id}' closed${r.by ? ` by ${r.by}` : ''}${r.reason ? `: ${r.reason}` : ''}`);
    return { handled: true, target: 'human_queue', id: rule.target.id, closed: true, by: r.by, ...(r.reason ? { reason: r.reason } : {}) };
  }
  return { handled: true, target: 'human_queue', id: rule.target.id, output: r.output, by: r.by };
}
