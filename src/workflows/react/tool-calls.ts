/**
 * One tool call of a model turn: the limits, then delegation or the registry tool — argument
 * checks, tool_input guardrails, approval just before it runs (after any pause), the `runTool`
 * activity or an agent tool's child run, and tool_output guardrails on the result.
 */
import type { CompiledTool, JsonObject } from '../../compiled/types';
import type { BlobRef } from '../../shared/contract';
import { DELEGATE_TOOL } from '../../runtime/agent-view';
import type { AppendItem, ToolCall } from '../../runtime/messages';
import { countToolCall, toolCallBlocked } from '../../runtime/limits';
import { approvalReason } from '../../runtime/approvals';
import type { ReactRun } from './context';
import { errorResult } from './tool-result';
import { awaitApproval } from './approval';
import { runAgentCall, runDelegation } from './delegation';
import { guardToolInput, guardToolOutput } from './guardrails';
import { toolPolicyRefusal } from './governance';

// Arguments that were not a JSON object, as the openai provider marks them (INVALID_ARGUMENTS_KEY in src/activities/openai.ts).
const INVALID_ARGUMENTS_KEY = '__agentloom_invalid_arguments';

export async function runCall(rx: ReactRun, call: ToolCall): Promise<AppendItem> {
  const p = prepareCall(rx, call);
  return 'item' in p ? p.item : callPrepared(rx, call, p);
}

/**
 * The only call of a turn (the common turn). A plain registry tool — no tool_input guardrail, no
 * approval, not an agent tool, the run not paused — is issued with no await before it and its
 * result handled in one `.then`: the workflow sandbox captures a stack trace for every promise a
 * workflow creates (Temporal's stack-trace query), so each async layer costs workflow-task time.
 * The same commands in the same order: with one call there is no other call to overtake, and the
 * tool still starts two promise ticks after the model reply (after a deadline's cancellation).
 * Anything else takes `runCall`'s path.
 */
export function runLoneCall(rx: ReactRun, call: ToolCall): Promise<AppendItem> {
  const p = prepareCall(rx, call);
  if ('item' in p) return Promise.resolve(p.item);
  if ('tool' in p && !(p.tool.kind === 'agent' && p.tool.agent) && !rx.shell.paused && !rx.guarded('tool_input') && !approvalReason(rx.policy, call.name)) {
    return issueTool(rx, call, p.args);
  }
  return callPrepared(rx, call, p);
}

type Prepared = { item: AppendItem } | { delegate: true } | { tool: CompiledTool; args: JsonObject };

/** The synchronous start of a call: the limits (counted), blocked tools, delegation, the tool and its policy, its arguments. */
function prepareCall(rx: ReactRun, call: ToolCall): Prepared {
  const { st } = rx;
  // Synchronous up to the first await: concurrent calls of one turn see each other's counts.
  const blocked = toolCallBlocked(st.counters, rx.limits, call.name);
  countToolCall(st.counters, call.name);
  if (blocked) return { item: errorResult(call, blocked) };
  if (st.tools_blocked) return { item: errorResult(call, `tool calls are blocked for this run: ${st.tools_blocked}`) };
  if (rx.delegateTool && call.name === DELEGATE_TOOL) return { delegate: true };
  const tool = rx.toolsById.get(call.name);
  if (!tool) {
    const names = [...rx.toolsById.keys(), ...rx.modelExtraTools.map((e) => e.name)];
    return { item: errorResult(call, `unknown tool '${call.name}'; available tools: ${names.join(', ') || '(none)'}`) };
  }
  // allowed_connectors / data_residency: refused before arguments, approval or the tool run.
  const refused = toolPolicyRefusal(rx, tool);
  if (refused) return { item: errorResult(call, refused) };
  const badArgs = (call.arguments as Record<string, unknown> | undefined)?.[INVALID_ARGUMENTS_KEY] as { error?: string } | undefined;
  if (badArgs) return { item: errorResult(call, `arguments for tool ${call.name} are not a valid JSON object (${badArgs.error ?? 'parse error'}); call it again with a JSON object matching its input schema`) };
  return { tool, args: call.arguments ?? {} };
}

/** The rest of a call after `prepareCall`: delegation, or tool_input guardrails, approval and the tool. */
async function callPrepared(rx: ReactRun, call: ToolCall, p: Exclude<Prepared, { item: AppendItem }>): Promise<AppendItem> {
  if ('delegate' in p) return runDelegation(rx, call);
  const { tool } = p;
  let args = p.args;
  if (rx.guarded('tool_input')) {
    const g = await guardToolInput(rx, call, args);
    if ('error' in g) return g.error;
    args = g.args;
  }
  const reason = approvalReason(rx.policy, call.name);
  if (reason) {
    const approved = await awaitApproval(rx, call, args, reason);
    if ('error' in approved) return approved.error;
    args = approved.args;
    // An operator replaced the call with another registry tool: that one runs under the same call id.
    if (approved.call) return execute(rx, approved.call, rx.toolsById.get(approved.call.name)!, args);
  }
  return execute(rx, call, tool, args);
}

/** Run an approved (or approval-free) registry tool call: an agent tool's child run or the runTool activity. */
async function execute(rx: ReactRun, call: ToolCall, tool: CompiledTool, args: JsonObject): Promise<AppendItem> {
  await rx.shell.checkpoint();
  if (tool.kind === 'agent' && tool.agent) {
    const chk = await rx.checkArgs(call, args);
    if (!chk.ok) return errorResult(call, chk.error ?? 'invalid arguments');
    return guardToolOutput(rx, call, await runAgentCall(rx, call, tool.agent.agent_id, rx.agent.agent_tool_types[tool.tool_id] ?? 'agfReactWorkflow', args, `tool-${call.id}`));
  }
  const out = await startTool(rx, call, args);
  return guardToolOutput(rx, call, { ref: out.ref });
}

/** The `runTool` activity of a registry tool call. */
function startTool(rx: ReactRun, call: ToolCall, args: JsonObject): Promise<{ ref: BlobRef }> {
  return rx.acts.runTool.executeWithOptions({ ...rx.toolOpts, summary: `tool ${call.name}` }, [
    {
      bundle: rx.input.bundle,
      agent_id: rx.input.agent_id,
      workflow_id: rx.workflowId,
      call_id: call.id,
      tool: call.name,
      args,
      workspace: rx.input.options?.workspace,
    },
  ]);
}

/** `execute` of a lone plain call (see runLoneCall): the tool now, tool_output guardrails in its `.then`. */
function issueTool(rx: ReactRun, call: ToolCall, args: JsonObject): Promise<AppendItem> {
  return startTool(rx, call, args).then((out) => (rx.guarded('tool_output') ? guardToolOutput(rx, call, { ref: out.ref }) : { ref: out.ref }));
}
