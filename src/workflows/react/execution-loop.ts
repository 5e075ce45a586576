/**
 * Seed 003's inner loop for agents with `runtime.execution_loop: dependencies`: the calls of one
 * model reply run as soon as their `_dependsOn` are met (not all at once, not one turn at a time),
 * each finished call may unblock others at once, and `_outputPath` results land in the run's
 * write-once State. The scheduling decisions are pure (src/runtime/execution-loop.ts); this file
 * only starts calls (react/tool-calls.ts: limits, checks, approval, the tool) and feeds results back.
 */
import { condition } from '@temporalio/workflow';
import type { JsonObject, JsonValue } from '../../compiler/types';
import { ExecutionPlan, formatStatePath } from '../../runtime/execution-loop';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { runCall } from './tool-calls';

/** Run the calls of one reply in dependency order; the results in reply order (one per call). */
export async function runExecutionLoop(rx: ReactRun, calls: ToolCall[]): Promise<AppendItem[]> {
  const plan = new ExecutionPlan(calls, rx.st.state ?? {});
  const results = new Map<string, AppendItem>();
  const original = new Map(calls.map((c) => [c.id, c]));
  // Calls some other call names in `_dependsOn`: how they ended matters, so their outcome is read.
  const dependedOn = new Set(plan.calls.flatMap((c) => c.dependsOnCalls));
  let finished = 0;
  let failure: unknown;

  const runOne = async (id: string): Promise<void> => {
    const p = plan.byId(id)!;
    try {
      const item = await runCall(rx, { id, name: p.name, arguments: p.args });
      const outcome = p.outputPath || dependedOn.has(id) ? await outcomeOf(rx, item) : { ok: true };
      plan.complete(id, outcome.ok, outcome.value);
      results.set(id, item);
    } catch (e) {
      failure ??= e;
    } finally {
      finished += 1;
    }
  };

  for (;;) {
    for (const s of plan.settle()) results.set(s.id, errorResult(original.get(s.id)!, s.reason));
    if (plan.done()) break;
    for (const id of plan.ready()) {
      plan.start(id);
      void runOne(id);
    }
    publish(rx, plan);
    const seen = finished;
    await condition(() => finished > seen);
    if (failure !== undefined) throw failure;
  }
  publish(rx, plan);
  return calls.map((c) => results.get(c.id)!);
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
