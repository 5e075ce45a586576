/**
 * The Execution Loop specification's inner loop for agents with `runtime.execution_loop: dependencies`: the calls of one
 * model reply run as soon as their `_dependsOn` are met (not all at once, not one turn at a time),
 * each finished call may unblock others at once, and `_outputPath` results land in the run's
 * write-once State. The scheduling decisions are pure (src/runtime/execution-loop.ts); this file
 * only starts calls (react/tool-calls.ts: limits, checks, approval, the tool) and feeds results back.
 */
import { condition } from '@temporalio/workflow';
import type { JsonObject, JsonValue } from '../../compiled/types';
import { ExecutionPlan, formatStatePath } from '../../runtime/execution-loop';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { runCall } from './tool-calls';

/** Run the calls of one reply in dependency order; the results in reply order (one per call). */
export async function runExecutionLoop(rx: ReactRun, calls: ToolCall[]): Promise<AppendItem[]> {
  return new LoopDriver(rx, new ExecutionPlan(calls, rx.st.state ?? {})).finish(calls);
}

/**
 * Drives one Request's plan: starts every unblocked call, records how each ended, until all have.
 * On a streamed reply (the Execution Loop specification's "Request & Call Streaming") calls are added as they arrive
 * (react/stream.ts) and may run before the reply ends; `finish` takes the complete reply.
 */
export class LoopDriver {
  private readonly results = new Map<string, AppendItem>();
  private readonly original = new Map<string, ToolCall>();
  private finished = 0;
  private failure: unknown;
  /** A streamed plan reads every call's outcome: a dependant naming it by id may arrive after it ended. */
  private readonly readEvery: boolean;

  constructor(
    private readonly rx: ReactRun,
    private readonly plan: ExecutionPlan,
  ) {
    this.readEvery = plan.open;
    for (const c of plan.calls) this.original.set(c.id, { id: c.id, name: c.name, arguments: c.args });
  }

  /** A call complete in the stream: planned, and started at once if unblocked (false: already planned). */
  add(call: ToolCall): boolean {
    if (!this.plan.add(call)) return false;
    this.original.set(call.id, call);
    this.pump();
    return true;
  }

  /** The reply is complete: plan what did not stream, then run until every call ended; results in reply order. */
  async finish(calls: ToolCall[]): Promise<AppendItem[]> {
    if (this.plan.open) {
      for (const c of calls) if (this.plan.add(c)) this.original.set(c.id, c);
      this.plan.close();
    } else for (const c of calls) this.original.set(c.id, c);
    for (;;) {
      this.pump();
      if (this.plan.done()) break;
      const seen = this.finished;
      await condition(() => this.finished > seen);
      if (this.failure !== undefined) throw this.failure;
    }
    publish(this.rx, this.plan);
    const inReply = new Set(calls.map((c) => c.id));
    const lost = this.plan.calls.filter((c) => !inReply.has(c.id));
    // Only a reply that disagrees with its own stream gets here (the model activity prevents it).
    if (lost.length) this.rx.shell.warn(`call(s) ${lost.map((c) => c.id).join(', ')} streamed and ran but are missing from the model's final reply: their results are not given to the model`);
    return calls.map((c) => this.results.get(c.id)!);
  }

  /** Report refusals and skips, start every unblocked call, publish where each stands. */
  private pump(): void {
    for (const s of this.plan.settle()) this.results.set(s.id, errorResult(this.original.get(s.id)!, s.reason));
    for (const id of this.plan.ready()) {
      this.plan.start(id);
      void this.runOne(id);
    }
    publish(this.rx, this.plan);
  }

  private async runOne(id: string): Promise<void> {
    const p = this.plan.byId(id)!;
    try {
      const item = await runCall(this.rx, { id, name: p.name, arguments: p.args });
      // Calls some other call names in `_dependsOn`: how they ended matters, so their outcome is read.
      const named = this.readEvery || this.plan.calls.some((c) => c.dependsOnCalls.includes(id));
      const outcome = p.outputPath || named ? await outcomeOf(this.rx, item) : { ok: true };
      this.plan.complete(id, outcome.ok, outcome.value);
      this.results.set(id, item);
    } catch (e) {
      this.failure ??= e;
    } finally {
      this.finished += 1;
    }
  }
}

/** Did the call succeed, and what does it write to State? Inline items are refusals/rejections (errors) or results already in hand. */
async function outcomeOf(rx: ReactRun, item: AppendItem): Promise<{ ok: boolean; value?: JsonValue }> {
  if ('message' in item) return item.message.is_error ? { ok: false } : { ok: true, value: parseValue(item.message.content) };
  const o = await rx.acts.readToolOutcome.executeWithOptions({ ...rx.modelOpts, summary: 'read tool outcome' }, [item.ref]);
  return o.is_error ? { ok: false } : { ok: true, value: o.value };
}

function parseValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The run's State and where each call of this reply stands: `loom status` prints it (status.progress). */
function publish(rx: ReactRun, plan: ExecutionPlan): void {
  if (Object.keys(plan.state).length) rx.st.state = plan.state;
  const calls = plan.calls.map((c) => {
    const reason = plan.reason(c.id);
    return {
      call_id: c.id,
      tool: c.name,
      status: plan.statusOf(c.id) ?? 'pending',
      ...(c.dependsOnCalls.length || c.dependsOnPaths.length ? { depends_on: [...c.dependsOnCalls, ...c.dependsOnPaths.map(formatStatePath)] } : {}),
      ...(c.outputPath ? { output_path: formatStatePath(c.outputPath) } : {}),
      ...(reason ? { reason } : {}),
    };
  });
  rx.shell.status.progress = { state: plan.state, calls } as unknown as JsonObject;
}
