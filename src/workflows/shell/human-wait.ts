/**
 * A run waiting for an operator's `respond` on a human queue (an escalation with a human_queue
 * target): while it waits the run's state is waiting_for_human, the wait is one of its pending
 * decisions, and AgentStatus/EscalationQueue say so (the run shows up in `loom escalations`).
 */
import { log } from '@temporalio/workflow';
import type { HumanQueue, HumanResponse } from './human-queue';

/** What the wait does to its run, in this order: publish, show, refresh the decisions; and when it ends. */
export interface HumanWaitHost {
  enterHumanQueue(queue: string): void;
  details(what: string): void;
  decisionsChanged(): void;
  /** The wait ended (`answered`: an operator responded; else it was cancelled). */
  waitEnded(answered: boolean): void;
}

export class HumanWait {
  /** The wait under way, if any. */
  current: { queue: string; reason: string; since: string } | undefined;

  constructor(private readonly human: HumanQueue, private readonly host: HumanWaitHost) {}

  /** Wait for an operator's `respond` on `queue`. */
  async wait(queue: string, reason: string): Promise<HumanResponse> {
    this.current = { queue, reason, since: new Date().toISOString() };
    this.host.enterHumanQueue(queue);
    this.host.details(`escalated to human queue '${queue}': ${reason}`);
    this.host.decisionsChanged();
    log.info('waiting for a human response', { queue, reason });
    let answered = false;
    try {
      const r = await this.human.wait(queue);
      answered = true;
      return r;
    } finally {
      this.current = undefined;
      this.host.decisionsChanged();
      this.host.waitEnded(answered);
    }
  }
}
