/**
 * Swarm pattern (the Agent Definition Specification) as a Temporal workflow. The orchestrator runs first; every member runs
 * as an agfReactWorkflow child with the runtime tool `handoff_to_agent` (RunOptions.extra_tools,
 * terminal: the member run ends and returns AgentRunResult.terminal_tool_call) and the shared
 * context block in RunOptions.context. The swarm ends when a member answers without handing off.
 * Limits: max_handoffs (then the current agent must answer: forbid_tools), max_iterations,
 * execution_timeout (durable timer), node_timeout (child run timeout), ping-pong detection.
 * A hand-off to an agent not listed in the pattern is refused: the agent is told once and rerun;
 * a second refused hand-off fails the swarm.
 */
import type { JsonObject, JsonValue, SwarmPattern } from '../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { WORKFLOW_TYPES } from '../shared/dispatch';
import { HANDOFF_TOOL, handoffToolSpec, SwarmBook } from '../orchestration/swarm';
import { textOf } from '../shared/expr';
import { OrchestratorRun } from './orchestrator';
import { failureMessage, isTimeout } from './shell/failures';
import { DeadlineOutcome, withDeadline } from './shell/deadline';

export async function swarmWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'swarm');
  const agent = await run.init();
  const pattern = agent.orchestration?.pattern as SwarmPattern | undefined;
  if (!pattern || pattern.type !== 'swarm') throw run.fail(`agent '${agent.agent_id}' declares no swarm pattern`, 'WrongPattern');

  const book = SwarmBook.start(input.agent_id, pattern, input.input);
  const registry: { agent_id: string; description: string }[] = [];
  for (const id of book.validTargets()) {
    const a = await run.load(id);
    registry.push({ agent_id: id, description: a.tool_manifest?.description ?? a.routing?.tool_description ?? a.meta?.description ?? a.meta?.name ?? id });
  }
  const deadline = Date.now() + (pattern.execution_timeout ?? 900) * 1000;
  const nodeTimeout = pattern.node_timeout ?? 300;
  let refusal: string | undefined;
  const report = () => {
    run.status.step = book.state.iterations;
    run.status.progress = {
      current_agent: book.state.current,
      iterations: book.state.iterations,
      max_iterations: pattern.max_iterations,
      handoffs: book.state.handoffs,
      max_handoffs: pattern.max_handoffs,
      history: book.state.history.map((h) => ({ agent: h.agent, ...(h.handoff_to ? { handoff_to: h.handoff_to } : {}) })),
    };
  };

  for (;;) {
    if (book.iterationsExhausted()) {
      report();
      throw run.fail(`swarm stopped: max_iterations (${pattern.max_iterations}) reached without a final answer`, 'MaxIterations', run.status.progress);
    }
    const iteration = book.beginIteration();
    const current = book.state.current;
    const mustAnswer = book.handoffsExhausted();
    const context = book.contextBlock(registry);
    if (refusal) (context.swarm as JsonObject).handoff_error = refusal;
    if (mustAnswer) (context.swarm as JsonObject).instruction = `max_handoffs (${pattern.max_handoffs}) reached: produce the final answer now, without handing off`;
    const memberInput: JsonValue =
      current === input.agent_id && book.state.handoffs === 0 ? input.input : ({ task: input.input, message: book.state.message ?? '' } as JsonObject);
    report();
    let r: DeadlineOutcome<AgentRunResult>;
    try {
      r = await withDeadline(
        deadline,
        () =>
          run.runMember({
            agent_id: current,
            input: memberInput,
            role: `turn-${iteration}-${current}`,
            workflowType: WORKFLOW_TYPES['agf.react'],
            timeoutSeconds: nodeTimeout,
            options: mustAnswer ? { context, forbid_tools: true } : { context, extra_tools: [handoffToolSpec(registry)] },
          }),
        'member',
      );
    } catch (err) {
      const what = isTimeout(err) ? `timed out after node_timeout (${nodeTimeout}s)` : `failed: ${failureMessage(err)}`;
      const esc = await run.escalate({ on: 'node_failure', node: current }, { error: what, input: memberInput });
      if (esc.handled && 'final' in esc) return run.complete(esc.final.output);
      if (esc.handled && 'output' in esc) {
        book.finish(textOf(esc.output).slice(0, 200));
        return run.complete(esc.output);
      }
      throw run.fail(`swarm agent '${current}' ${what}`, isTimeout(err) ? 'NodeTimeout' : 'NodeFailed', run.status.progress);
    }
    if (r.timedOut) {
      const esc = await run.escalate({ on: 'timeout' }, { error: `execution_timeout (${pattern.execution_timeout}s) exceeded` });
      if (esc.handled && 'final' in esc) return run.complete(esc.final.output);
      if (esc.handled && 'output' in esc) return run.complete(esc.output);
      throw run.fail(`swarm execution_timeout (${pattern.execution_timeout}s) exceeded`, 'ExecutionTimeout', run.status.progress);
    }
    const res = r.value;

    const call = res.terminal_tool_call;
    if (!call || call.name !== HANDOFF_TOOL) {
      book.finish(textOf(res.output).slice(0, 200));
      report();
      return run.complete(res.output);
    }
    const decision = book.handoff(call.arguments, textOf(res.output).slice(0, 200));
    if (decision.ok) {
      refusal = undefined;
      report();
      continue;
    }
    report();
    if (decision.kind === 'ping_pong') throw run.fail(`swarm stopped: ${decision.reason}`, 'PingPongDetected', run.status.progress);
    if (refusal) {
      throw run.fail(`swarm stopped: ${decision.reason} (the agent '${current}' repeated a refused hand-off)`, 'HandoffRefused', run.status.progress);
    }
    refusal = decision.reason;
    run.warn(`${current}: ${decision.reason}`);
  }
}
