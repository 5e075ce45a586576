/** Live progress for `loom run`: polls the `status` query and prints what changed. */
import type { WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import { QUERIES, RunStatus } from '../shared/contract';

export function watchRun(handle: WorkflowHandle, say: (line: string) => void, intervalMs = 400): { stop(): void } {
  let last = '';
  const announced = new Set<string>();
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    try {
      const s = await handle.query<RunStatus>(QUERIES.status);
      const line = `[${s.state}] ${s.pattern} step ${s.step}, turn ${s.turn}, tool calls ${s.tool_calls_made}, tokens ${s.token_usage?.total_tokens ?? 0}`;
      if (line !== last) { say(line); last = line; }
      for (const p of s.pending_approvals ?? []) {
        if (announced.has(p.call_id)) continue;
        announced.add(p.call_id);
        say(`  awaiting approval: ${p.tool} ${JSON.stringify(p.arguments)} (${p.reason})`);
        say(`    loom approve ${handle.workflowId} ${p.call_id}   |   loom reject ${handle.workflowId} ${p.call_id} --reason "…"`);
      }
      if (s.escalation) {
        const key = `esc:${s.escalation.queue}:${s.escalation.since}`;
        if (!announced.has(key)) {
          announced.add(key);
          say(`  escalated to human queue '${s.escalation.queue}': ${s.escalation.reason}`);
          say(`    loom respond ${handle.workflowId} --queue ${s.escalation.queue} --output '{…}'   |   --close`);
        }
      }
    } catch {
      // the run may not have processed its first task yet, or has just closed
    }
  };
  const timer = setInterval(() => { void tick(); }, intervalMs);
  void tick();
  return { stop() { stopped = true; clearInterval(timer); } };
}

/** The innermost failure message: what an operator can act on. */
export function describeFailure(err: WorkflowFailedError): string {
  let cause: any = err.cause;
  const parts: string[] = [];
  while (cause) {
    if (cause.message) parts.push(cause.message);
    cause = cause.cause;
  }
  return parts.length ? parts[parts.length - 1] + (parts.length > 1 ? ` (via ${parts.slice(0, -1).join(' → ')})` : '') : err.message;
}
