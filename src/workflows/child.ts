/**
 * Start a compiled agent as a child workflow of the current one. Every orchestration policy and
 * pattern, and agent-as-tool calls, go through here, so members show up as a tree in the Web UI
 * and each member keeps its own bounded history.
 */
import { executeChild, startChild, workflowInfo, ChildWorkflowHandle, ChildWorkflowOptions, ParentClosePolicy } from '@temporalio/workflow';
import type { AgentRunResult, BlobRef, RunAgentInput, RunOptions } from '../shared/contract';
import type { JsonValue } from '../compiler/types';
import { SEARCH_ATTRIBUTES } from '../shared/contract';

export interface ChildRunSpec {
  bundle: BlobRef;
  agent_id: string;
  /** Workflow type from workflowTypeFor(agent) (src/shared/dispatch.ts). */
  workflowType: string;
  input: JsonValue;
  /** Short role used in the child id, e.g. `step-2-writer`, `node-billing-3`, `item-17`. */
  role: string;
  options?: RunOptions;
  /** Per-member timeout in seconds (node_timeout), enforced by Temporal as the run timeout. */
  timeoutSeconds?: number;
}

function childOptions(spec: ChildRunSpec): ChildWorkflowOptions & { args: [RunAgentInput] } {
  const parentId = workflowInfo().workflowId;
  const input: RunAgentInput = {
    bundle: spec.bundle,
    agent_id: spec.agent_id,
    input: spec.input,
    options: { ...spec.options, parent: { workflow_id: parentId, role: spec.role } },
  };
  return {
    workflowId: `${parentId}/${spec.role}`,
    args: [input] as [RunAgentInput],
    parentClosePolicy: ParentClosePolicy.TERMINATE,
    workflowRunTimeout: spec.timeoutSeconds ? spec.timeoutSeconds * 1000 : undefined,
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [spec.agent_id] },
  };
}

/** Run a member to completion and return its result (throws ChildWorkflowFailure on failure). */
export async function runChildAgent(spec: ChildRunSpec): Promise<AgentRunResult> {
  return executeChild<(i: RunAgentInput) => Promise<AgentRunResult>>(spec.workflowType, childOptions(spec));
}

/** Start a member and return its handle (for signals such as pause/resume, or racing timers). */
export async function startChildAgent(spec: ChildRunSpec): Promise<ChildWorkflowHandle<(i: RunAgentInput) => Promise<AgentRunResult>>> {
  return startChild<(i: RunAgentInput) => Promise<AgentRunResult>>(spec.workflowType, childOptions(spec));
}
