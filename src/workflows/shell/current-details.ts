/**
 * The Web UI's current details of a run: "<agent> (<pattern>): <what it does now>" followed by the
 * decisions waiting on a human in its tree. Current details are workflow metadata, not a command:
 * setting them never changes what a history replays.
 */
import { setCurrentDetails } from '@temporalio/workflow';
import type { PendingDecision } from '../../shared/contract';
import { decisionsDetails } from '../../runtime/decisions';

export class CurrentDetails {
  private label = '';
  private what: string | undefined;
  private decisionsShown = false;

  /** `decisions`: the run's pending decisions now (read each time the details are drawn). */
  constructor(private readonly decisions: () => PendingDecision[]) {}

  /** Name the run once its agent is loaded. */
  labelRun(agentId: string, pattern: string): void {
    this.label = `${agentId} (${pattern})`;
  }

  /** What the run is doing now. */
  show(what: string): void {
    this.what = what;
    setCurrentDetails(`${this.label}: ${what}${decisionsDetails(this.decisions())}`);
  }

  /** Draw again after the pending decisions changed (nothing when there is nothing to show or to clear). */
  refresh(): void {
    const block = decisionsDetails(this.decisions());
    if (this.what === undefined && !block && !this.decisionsShown) return;
    this.decisionsShown = block !== '';
    setCurrentDetails(`${this.label}${this.what !== undefined ? `: ${this.what}` : ''}${block}`);
  }
}
