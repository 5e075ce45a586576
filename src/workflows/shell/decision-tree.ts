/**
 * Tree-wide pending decisions of a run: every run keeps the decisions waiting on a human in its
 * whole subtree — its own pending approvals and human wait, plus what each member last reported
 * with the `descendantDecisions` signal — and on every change signals the whole list to its parent
 * (behind patch `tree-pending-decisions`; a parent that has closed is ignored). A member's entry is
 * dropped when its run closes. A continue-as-new carries the entries of members still open
 * (`pending_members`; none at today's continue-as-new points, which wait for their members).
 */
import { CancellationScope, getExternalWorkflowHandle, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PendingDecision, RunAgentInput } from '../../shared/contract';
import { DescendantDecisionsReportSchema, PAYLOAD_SHAPES } from '../../shared/contract';
import { descendantDecisionsSignal } from '../../shared/definitions';
import { CarriedMemberDecisions, decisionsKey, DescendantDecisions } from '../../runtime/decisions';
import { isObject, signalPayload } from './payloads';
import { PATCHES } from '../patches';

/** The descendantDecisions handler before the check acted on any object with a `decisions` list of objects. */
const reportBefore = (raw: unknown): boolean => isObject(raw) && Array.isArray(raw.decisions) && raw.decisions.every(isObject);

/** What the tree needs of its run. */
export interface DecisionTreeHost {
  readonly input: RunAgentInput;
  /** Every decision pending in the run and below it. */
  decisions(): PendingDecision[];
  /** The list changed: redraw the Web UI's current details. */
  shown(): void;
  warn(message: string): void;
}

export class DecisionTree {
  private readonly descendants = new DescendantDecisions();
  private seen = decisionsKey([]);
  private reportSeq = 0;
  private reportQueued = false;

  /** `carried`: the entries of members still open when the previous run continued-as-new. */
  constructor(private readonly host: DecisionTreeHost, carried: CarriedMemberDecisions[]) {
    this.descendants.restore(carried);
  }

  /** Register the `descendantDecisions` handler: sent by a member; a payload that does not fit (sent by anything else) is a run warning. */
  register(): void {
    setHandler(descendantDecisionsSignal, (raw) => {
      const r = signalPayload(DescendantDecisionsReportSchema, raw, PAYLOAD_SHAPES.descendantDecisions, 'descendantDecisions', (m) => this.host.warn(m), reportBefore);
      if (r && this.descendants.accept(r)) this.changed();
    });
  }

  /** What the members below this run have pending. */
  members(): PendingDecision[] {
    return this.descendants.list();
  }

  /** What a continue-as-new carries: the entries of members still open. */
  carried(): CarriedMemberDecisions[] {
    return this.descendants.snapshot();
  }

  /** When the list changed: refresh current details and tell the parent (once per workflow activation). */
  changed(): void {
    const key = decisionsKey(this.host.decisions());
    if (key === this.seen) return;
    this.seen = key;
    this.host.shown();
    if (!this.host.input.options?.parent || this.reportQueued) return;
    this.reportQueued = true;
    void Promise.resolve().then(() => this.reportToParent());
  }

  /** A member's run closed (result or failure): what it last reported is no longer pending. */
  memberClosed(role: string): void {
    if (this.descendants.closed(`${workflowInfo().workflowId}/${role}`, Date.now())) this.changed();
  }

  private reportToParent(): void {
    this.reportQueued = false;
    const parent = this.host.input.options?.parent;
    // Runs recorded before the patch sent nothing to their parent.
    if (!parent || !patched(PATCHES.treePendingDecisions.id)) return;
    const report = { workflow_id: workflowInfo().workflowId, role: parent.role, at: Date.now(), seq: ++this.reportSeq, decisions: this.host.decisions() };
    CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parent.workflow_id).signal(descendantDecisionsSignal, report)).catch((err: unknown) => {
      // The parent has closed (failed, cancelled, or finished while this member was being torn down): nobody to tell.
      if (/not found/i.test(String((err as Error)?.message ?? err))) return;
      this.host.warn(`could not report pending decisions to ${parent.workflow_id}: ${String((err as Error)?.message ?? err)}`);
    });
  }
}
