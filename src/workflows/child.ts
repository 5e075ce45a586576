/**
 * Start a compiled agent as a child workflow of the current one. Every orchestration policy and
 * pattern, and agent-as-tool calls, go through here, so members show up as a tree in the Web UI
 * and each member keeps its own bounded history.
 */
import { executeChild, patched, workflowInfo, ChildWorkflowOptions, ParentClosePolicy } from '@temporalio/workflow';
import type { AgentRunResult, BlobRef, RunAgentInput, RunOptions } from '../shared/contract';
import type { JsonValue } from '../compiled/types';
import { SEARCH_ATTRIBUTES } from '../shared/contract';
import { PATCHES } from './patches';

export interface ChildRunSpec {
  bundle: BlobRef;
  agent_id: string;
  /** Workflow type from workflowTypeFor(agent) (src/shared/dispatch.ts). */
  workflowType: string;
  input: JsonValue;
  /** Short role used in the child id, e.g. `step-2-writer`, `node-billing-3`, `item-17`. */
  role: string;
  options?: RunOptions;
  /**
   * Per-member timeout in seconds (node_timeout), enforced by Temporal as the member's execution
   * timeout: it covers the whole chain of runs, so a member that continues-as-new does not reset it.
   */
  timeoutSeconds?: number;
  /** One line for the Web UI (user metadata, not part of the commands Temporal compares on replay). */
  summary?: string;
}

/** Runs recorded before patch `node-timeout-execution` started members with a run timeout (reset by continue-as-new). */
function timeoutOptions(seconds: number | undefined): Pick<ChildWorkflowOptions, 'workflowRunTimeout' | 'workflowExecutionTimeout'> {
  if (!seconds) return {};
  return patched(PATCHES.nodeTimeoutExecution.id) ? { workflowExecutionTimeout: seconds * 1000 } : { workflowRunTimeout: seconds * 1000 };
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
    ...timeoutOptions(spec.timeoutSeconds),
    searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [spec.agent_id] },
    ...(spec.summary ? { staticSummary: spec.summary } : {}),
  };
}

/** Run a member to completion and return its result (throws ChildWorkflowFailure on failure). */
export async function runChildAgent(spec: ChildRunSpec): Promise<AgentRunResult> {
  return executeChild<(i: RunAgentInput) => Promise<AgentRunResult>>(spec.workflowType, childOptions(spec));
}

