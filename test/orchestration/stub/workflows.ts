/**
 * INTERIM harness used until the runtime's agfReactWorkflow/loadAgent exist: a minimal scripted
 * single-turn "react" member plus every orchestration workflow. Real Temporal, stub member.
 */
import { ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { AgentRunResult, RunAgentInput } from '../../../src/shared/contract';
import type { ScriptedReply, JsonValue } from '../../../src/compiler/types';
import type { OrchestrationActivities } from '../../../src/workflows/orchestration-common';

export * from '../../../src/workflows/policies';
export * from '../../../src/workflows/graph';
export * from '../../../src/workflows/swarm';
export * from '../../../src/workflows/task-dag';
export * from '../../../src/workflows/steps';
export * from '../../../src/workflows/vendor';

const { loadAgent } = proxyActivities<OrchestrationActivities>({ startToCloseTimeout: '30s' });

export async function agfReactWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const a = await loadAgent({ bundle: input.bundle, agent_id: input.agent_id });
  const m = a.runtime.model.scripted ?? {};
  const text = (typeof input.input === 'string' ? input.input : JSON.stringify(input.input)).toLowerCase();
  let reply: ScriptedReply | undefined = (m.rules ?? []).find((r) => (r.when.input_contains === undefined || text.includes(r.when.input_contains.toLowerCase())) && (r.when.turn === undefined || r.when.turn === 0))?.reply;
  reply ??= m.turns?.[0] ?? { content: 'ok' };
  if (m.latency_ms) await sleep(m.latency_ms);
  if (reply.error) throw ApplicationFailure.nonRetryable(reply.error.message, 'ModelError');
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  if (reply.tool_calls?.length && !input.options?.forbid_tools) {
    const c = reply.tool_calls[0];
    if ((input.options?.extra_tools ?? []).some((t) => t.name === c.name && t.terminal)) {
      return { agent_id: a.agent_id, output: null, usage, warnings: [], terminal_tool_call: { name: c.name, arguments: c.arguments } };
    }
  }
  const output: JsonValue = reply.content ?? 'forced final answer';
  return { agent_id: a.agent_id, output, usage, warnings: [] };
}
