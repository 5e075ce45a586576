/**
 * The tool calls of the model turn in progress that stream in before its reply ends (the Execution
 * Loop specification's request and call streaming; react/stream.ts registers the signal that
 * delivers them): which turn may stream, and the plan its calls have joined.
 */
import { log } from '@temporalio/workflow';
import type { StreamedCall } from '../../shared/contract';
import type { AppendItem, ToolCall } from '../../runtime/messages';

/** The plan streamed calls join: the execution loop's driver (react/execution-loop.ts LoopDriver). */
export interface StreamedPlan {
  add(call: ToolCall): boolean;
  finish(calls: ToolCall[]): Promise<AppendItem[]>;
}

/** The model turn whose calls may stream in, and the plan they have joined so far. */
export class CallStream {
  private turn = -1;
  private open = false;
  private taken: ToolCall[] = [];
  private driver: StreamedPlan | undefined;

  /** Calls of model turn `turn` may stream in from now on. */
  begin(turn: number): void {
    this.turn = turn;
    this.open = true;
    this.taken = [];
    this.driver = undefined;
  }

  /** The model activity has ended: no more calls for this turn. */
  end(): void {
    this.open = false;
  }

  /** The plan streamed calls joined (undefined when none streamed); handed over once. */
  take(): StreamedPlan | undefined {
    const d = this.driver;
    this.driver = undefined;
    return d;
  }

  /** A call of the streaming turn joins its plan (`plan` makes the plan for the turn's first call). */
  accept(s: StreamedCall, plan: () => StreamedPlan): void {
    if (!this.open || s.turn !== this.turn) {
      log.warn(`streamed call ${s.call?.id} of turn ${s.turn + 1} ignored: ${this.open ? `turn ${this.turn + 1} is streaming` : 'no model turn is streaming'}`);
      return;
    }
    this.driver ??= plan();
    if (this.driver.add(s.call)) this.taken.push(s.call);
  }

  calls(turn: number): ToolCall[] {
    return turn === this.turn ? this.taken.map((c) => ({ ...c })) : [];
  }
}
