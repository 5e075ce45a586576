/**
 * AgentStatus and the other search attributes of a run (AgentId, AgentVersion, AgentPattern,
 * EscalationQueue). Each upsert is a workflow command, so replay depends on when they happen:
 * AgentStatus reaches the search attributes on one of two schedules, the ones running workflows
 * recorded:
 *                    react ('every-change')                 orchestrators ('milestones')
 *   begin            every run, the current state           first run only, 'running'
 *   pause/resume,    each state change                      never
 *   approvals
 *   human wait ends  EscalationQueue cleared, then the      'running' + queue cleared, once answered
 *                    state if it changed (also on cancel)
 *   end              the final state if it changed          the final state, every time fail/complete is called
 */
import { log, upsertSearchAttributes } from '@temporalio/workflow';
import type { RunState } from '../../shared/contract';
import { SEARCH_ATTRIBUTES } from '../../shared/contract';

export type StatusPublishing = 'every-change' | 'milestones';

export class StatusPublication {
  private published: RunState | undefined;
  private begun = false;

  /**
   * `state`: the run's state now. `beforeSync`: what runs first on every sync (the run shell
   * refreshes its pending decisions there).
   */
  constructor(
    private readonly publishing: StatusPublishing,
    private readonly state: () => RunState,
    private readonly beforeSync: () => void,
  ) {}

  /** The agent is loaded: publish who runs and the state (`continued`: a run continued-as-new). */
  begin(agent: { agent_id: string; version: string }, pattern: string, continued: boolean): void {
    this.begun = true;
    if (this.publishing === 'milestones' && continued) return;
    const state = this.publishing === 'every-change' ? this.state() : 'running';
    this.upsert({
      [SEARCH_ATTRIBUTES.agentId]: [agent.agent_id],
      [SEARCH_ATTRIBUTES.agentVersion]: [agent.version],
      [SEARCH_ATTRIBUTES.pattern]: [pattern],
      // 'paused' when a pause arrived with the start (signalWithStart).
      [SEARCH_ATTRIBUTES.status]: [state],
    });
    this.published = state;
  }

  /** Publish AgentStatus if it changed (react's schedule; orchestrators publish only milestones). */
  sync(): void {
    this.beforeSync();
    if (this.publishing !== 'every-change' || !this.begun) return;
    const s = this.state();
    if (s === this.published) return;
    this.published = s;
    this.upsert({ [SEARCH_ATTRIBUTES.status]: [s] });
  }

  /** The run ended in `state` (already the run's state). */
  end(state: 'completed' | 'failed' | 'cancelled'): void {
    if (this.publishing === 'every-change') this.sync();
    else this.upsert({ [SEARCH_ATTRIBUTES.status]: [state] });
  }

  /** AgentStatus=waiting_for_human and EscalationQueue=queue: the run shows up in `loom escalations`. */
  enterHumanQueue(queue: string): void {
    this.upsert({ [SEARCH_ATTRIBUTES.status]: ['waiting_for_human'], [SEARCH_ATTRIBUTES.escalationQueue]: [queue] });
    this.published = 'waiting_for_human';
  }

  /** The human acted: clear EscalationQueue (and publish the state again). */
  leaveHumanQueue(): void {
    if (this.publishing === 'every-change') {
      this.upsert({ [SEARCH_ATTRIBUTES.escalationQueue]: [] });
      this.sync();
    } else {
      this.upsert({ [SEARCH_ATTRIBUTES.status]: ['running'], [SEARCH_ATTRIBUTES.escalationQueue]: [] });
      this.published = 'running';
    }
  }

  /** A human wait ended: orchestrators recorded nothing when it was cancelled; react cleared the queue. */
  humanWaitEnded(answered: boolean): void {
    if (answered || this.publishing === 'every-change') this.leaveHumanQueue();
  }

  /** Search attributes are best effort: a server without them registered must not break runs. */
  private upsert(attrs: Record<string, string[]>): void {
    try {
      upsertSearchAttributes(attrs);
    } catch (err) {
      log.warn('search attribute update failed', { error: String(err) });
    }
  }
}
