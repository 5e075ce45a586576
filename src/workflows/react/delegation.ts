/**
 * Agents run by a react agent as child workflows whose output goes back to the model: agent tools
 * (tool kind `agent`) and delegation (`orchestration.can_delegate`: the model gets a
 * `delegate_to_agent` tool; the runtime runs only `allowed_delegates`, whatever the model asks for).
 */
import { isCancellation, patched } from '@temporalio/workflow';
import type { JsonObject, JsonValue } from '../../compiled/types';
import { DELEGATE_TOOL } from '../../runtime/agent-view';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import { runChildAgent } from '../child';
import { failureMessage } from '../shell/failures';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { awaitApproval } from './approval';
import { guardToolInput, guardToolOutput } from './guardrails';
import { PATCHES } from '../patches';


/** A delegate_to_agent call: only allowed delegates, tool_input guardrails, approval if required, then the child run. */
export async function runDelegation(rx: ReactRun, call: ToolCall): Promise<AppendItem> {
  const delegates = rx.agent.delegates ?? [];
  const target = String((call.arguments as Record<string, unknown> | undefined)?.agent_id ?? '');
  const d = delegates.find((x) => x.agent_id === target);
  if (!d) return errorResult(call, `delegation to '${target}' refused: this agent may only delegate to ${delegates.map((x) => x.agent_id).join(', ')} (orchestration.allowed_delegates)`);
  let args = (call.arguments ?? {}) as JsonObject;
  if (rx.guarded('tool_input')) {
    const g = await guardToolInput(rx, call, args);
    if ('error' in g) return g.error;
    args = g.args;
  }
  // policies.require_human_approval gates delegation too (patched: older runs delegated at once).
  if (rx.policy.require_human_approval && patched(PATCHES.delegateApproval.id)) {
    const approved = await awaitApproval(rx, call, args, 'policies.require_human_approval');
    if ('error' in approved) return approved.error;
    args = approved.args;
  }
  await rx.shell.checkpoint();
  return guardToolOutput(rx, call, await runAgentCall(rx, call, d.agent_id, d.workflow_type, (args.input ?? null) as JsonValue, `delegate-${call.id}`));
}

/** An agent run as a tool or a delegate: a child workflow whose output goes back to the model. */
export async function runAgentCall(rx: ReactRun, call: ToolCall, agentId: string, workflowType: string, childInput: JsonValue, role: string): Promise<AppendItem> {
  try {
    const res = await runChildAgent({
      bundle: rx.input.bundle,
      agent_id: agentId,
      workflowType,
      input: childInput,
      role,
      options: { approval_timeout_seconds: rx.input.options?.approval_timeout_seconds },
    });
    rx.shell.addUsage(res.usage);
    const text = typeof res.output === 'string' ? res.output : JSON.stringify(res.output);
    return { message: { role: 'tool', content: text, tool_call_id: call.id, name: call.name } };
  } catch (e) {
    if (isCancellation(e)) throw e;
    return errorResult(call, `agent ${call.name === DELEGATE_TOOL ? `delegate ${agentId}` : `tool ${call.name}`} failed: ${failureMessage(e)}`);
  } finally {
    rx.shell.memberClosed(role);
  }
}
