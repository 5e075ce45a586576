/**
 * agf.react as a deterministic Temporal workflow (the Agent Format; the Execution Loop specification's "The Execution Loop"): the
 * driver over the run shell (status, pause/resume, search attributes, usage, warnings, waiting for
 * a human, continue-as-new carry) and the feature files in ./react:
 *
 *   react/turn.ts        the loop: model turn -> tool calls -> results back, until a final answer
 *   react/tool-calls.ts  one tool call: limits, checks, approval, the activity or agent tool
 *   react/approval.ts    approve/reject handlers and the wait before a call runs
 *   react/guardrails.ts  input, tool_input, tool_output and output guardrails (activities)
 *   react/delegation.ts  delegate_to_agent and agent tools as child runs
 *   react/escalation.ts  guardrail / model_decision escalation to an agent or a human queue
 *   react/limits.ts      first-run checks and prompt, the run timeout, when to continue-as-new
 *   react/artifacts.ts   the Agent Definition Specification's artifacts written through the store as a completed run ends
 *   react/memory.ts      the Agent Definition Specification's memory: read at run start, written back (or approved) at its end
 *
 * The conversation lives in the content-addressed message store (src/activities/message-store.ts);
 * this workflow keeps only the head ref and counters, so history grows by a constant amount per
 * turn, and long runs continue-as-new carrying them (react/state.ts).
 */
import { ApplicationFailure, ContinueAsNew, isCancellation, patched, proxyActivities } from '@temporalio/workflow';
import { STORE_ACTIVITY } from './activity-options';
import { PATCHES } from './patches';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { patternOf } from '../shared/dispatch';
import type { Activities } from '../activities';
import { ApprovalBook } from '../runtime/approvals';
import type { AgentView } from '../runtime/agent-view';
import { lifecycleRefusal, memberRefusal } from '../governance/lifecycle';
import { failAfterDeadline } from './shell/deadline';
import { RunShell } from './shell/run-shell';
import { registerApprovalHandlers, ReplacementGate } from './react/approval';
import { toolRefusal } from '../governance/residency';
import { ReactRun } from './react/context';
import { escalate, EscalationRequest } from './react/escalation';
import { guardInput } from './react/guardrails';
import { auditRun, redactInput, redactsInput, refuseModelsOutsideResidency } from './react/governance';
import { saveArtifacts } from './react/artifacts';
import { writesArtifacts } from '../runtime/artifacts';
import { endRunMemory, memoryApplies, readMemory } from './react/memory';
import { prepareFirstRun, timeoutMessage } from './react/limits';
import { reactState } from './react/state';
import { runLoop } from './react/turn';
import { registerStreamHandlers } from './react/stream';
import { endEphemeral, ephemeralApplies } from './react/ephemeral';

export type { ReactState } from './react/state';

const loader = proxyActivities<Activities>(STORE_ACTIVITY);

/** The lifecycle check of loadAgent: a root run (no parent) needs allow_draft for a draft; a disabled agent never runs. */
function rootOf(input: RunAgentInput): { allow_draft: boolean } | undefined {
  return input.options?.parent ? undefined : { allow_draft: input.options?.allow_draft === true };
}

function loadView(input: RunAgentInput): Promise<AgentView> {
  const root = rootOf(input);
  return loader.loadAgent.executeWithOptions({ ...STORE_ACTIVITY, summary: `load agent ${input.agent_id}` }, [{ bundle: input.bundle, agent_id: input.agent_id, ...(root ? { root } : {}) }]);
}

/** The view given in the start input, held to the lifecycle rule loadAgent applies (no command: a refusal fails the run before it issues any). */
function givenView(input: RunAgentInput, view: AgentView): AgentView {
  const root = rootOf(input);
  const refusal = root ? lifecycleRefusal(view, root) : memberRefusal(view);
  if (refusal) throw ApplicationFailure.nonRetryable(refusal, 'AgentNotRunnable');
  return view;
}

export async function agfReactWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const { st, first } = reactState(input.carried);
  const book = new ApprovalBook();
  const shell = new RunShell(input, { pattern: 'agf.react', publishing: 'every-change', pendingApprovals: () => book.pending, decideOwn: (id, d) => book.decide(id, d), counters: () => st.counters });
  const gate: ReplacementGate = {};
  registerApprovalHandlers(input, shell, book, gate);

  // The view from the start input when the starter put it there, behind patch
  // `agent-view-in-start-input`, else the loadAgent activity. The input alone cannot tell the
  // branches apart: a worker older than the field ignores a view and loads, so only the marker
  // (issued here, the run's first command) says the view was taken; a replay without it loads.
  // A start without a view asks for no patch, so its history holds no marker and no upsert.
  const agent = input.agent_view && patched(PATCHES.agentViewInStartInput.id) ? givenView(input, input.agent_view) : await loadView(input);
  shell.status.pattern = patternOf(agent);
  shell.begin(agent, shell.status.pattern);
  const rx = new ReactRun(input, shell, st, book, agent);
  registerStreamHandlers(rx);
  book.replacementTools = [...rx.toolsById.keys()];
  gate.refusal = (tool) => {
    const t = rx.toolsById.get(tool);
    return t ? toolRefusal(rx.agent.policies, t) : undefined;
  };

  // retention_class ephemeral: decided once per chain (patch `ephemeral-run`), before any command of the run.
  if (first && ephemeralApplies(rx)) st.ephemeral = true;
  try {
    if (first) prepareFirstRun(rx);
    refuseModelsOutsideResidency(rx);
    let result: AgentRunResult;
    let escalated = false;
    try {
      // No await where there is nothing to wait for: the workflow sandbox captures a stack trace for
      // every promise a workflow creates, so each costs workflow-task time (the same commands).
      if (first && redactsInput(rx)) await redactInput(rx);
      if (first && rx.guarded('input')) await guardInput(rx);
      // Memory is decided once per chain (patch `memory-react`), read after the input guards.
      if (first && memoryApplies(rx)) st.memory = true;
      if (first && st.memory) await readMemory(rx);
      // runtime.timeout_seconds: a timer racing the loop; escalation happens outside it (the agent's work is over).
      result = st.deadline_ms === undefined ? await runLoop(rx) : await failAfterDeadline(st.deadline_ms, () => runLoop(rx), () => timeoutMessage(rx));
    } catch (e) {
      if (!(e instanceof EscalationRequest)) throw e;
      escalated = true;
      result = await escalate(rx, e);
    }
    if (st.state) result = { ...result, state: st.state };
    // An escalated run's answer is not the model's: it is not written back.
    if (st.memory) result = await endRunMemory(rx, result, { writeback: !escalated });
    if (writesArtifacts(rx.agent.artifacts)) await saveArtifacts(rx, result);
    if (rx.agent.policies.audit_trail) await auditRun(rx, 'completed');
    // An ephemeral run's output waits in the store for the client; the result names where.
    if (st.ephemeral) result = (await endEphemeral(rx, result))!;
    shell.end('completed');
    shell.details(`completed after ${st.counters.turn} turn(s), ${st.counters.tool_calls} tool call(s)`);
    return result;
  } catch (e) {
    if (e instanceof ContinueAsNew) throw e;
    await auditRun(rx, isCancellation(e) ? 'cancelled' : 'failed', e);
    if (st.ephemeral) await endEphemeral(rx);
    shell.end(isCancellation(e) ? 'cancelled' : 'failed', (e as Error)?.message ?? String(e));
    throw e;
  }
}
