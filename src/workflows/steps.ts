/**
 * Steps pattern (the Step Execution Modes) as a Temporal workflow: Sequential, FanOut
 * (consecutive FanOut steps in parallel, one failure fails the workflow), Collect (FanOut outputs
 * joined with "\n\n---\n\n"), Conditional (case-insensitive substring of the previous output, else
 * skipped), Loop (until / max_iterations, each output the next input), `{{input}}` and
 * `{{<output_var>}}` templates. Each step's member receives the rendered prompt (a string) as input.
 */
import { patched } from '@temporalio/workflow';
import type { JsonValue, StepDefinition, StepsPattern } from '../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { asText, containsCI, joinCollected, planSteps, renderTemplate, StepStage } from '../orchestration/steps';
import { OrchestratorRun } from './orchestrator';
import { failureMessage } from './shell/failures';
import { PATCHES } from './patches';

export async function stepsWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'steps');
  const agent = await run.init();
  const pattern = agent.orchestration?.pattern as StepsPattern | undefined;
  if (!pattern || pattern.type !== 'steps') throw run.fail(`agent '${agent.agent_id}' declares no steps pattern`, 'WrongPattern');
  let stages: StepStage[];
  try {
    stages = planSteps(pattern.steps);
  } catch (e) {
    throw run.fail((e as Error).message, 'InvalidSteps');
  }
  const vars: Record<string, string> = {};
  const trace: { step: string; status: 'completed' | 'skipped'; iterations?: number }[] = [];
  let current = asText(input.input);
  let lastFanOut: string[] | undefined;
  let lastOutput: JsonValue = input.input;

  // `{"ByName": name}` is a local_agents alias or an agent_id (AGF058). Runs recorded before patch
  // `steps-by-alias` passed the name through unresolved; the patch is only consulted when they differ.
  const memberFor = (name: string): string => {
    const id = run.agentIdFor(name);
    return id !== name && patched(PATCHES.stepsByAlias.id) ? id : name;
  };
  const runStep = async (step: StepDefinition, stepInput: string, role: string): Promise<AgentRunResult> => {
    const prompt = renderTemplate(step.prompt_template, stepInput, vars);
    try {
      return await run.runMember({ agent_id: memberFor(step.agent.ByName), input: prompt, role });
    } catch (err) {
      throw run.fail(`step '${step.name}' failed: ${failureMessage(err)}`, 'StepFailed');
    }
  };
  const record = (step: StepDefinition, output: JsonValue) => {
    lastOutput = output;
    current = asText(output);
    if (step.output_var) vars[step.output_var] = current;
  };
  const report = (name: string) => {
    run.status.progress = { current_step: name, steps: trace as unknown as JsonValue[] };
  };

  for (const [si, stage] of stages.entries()) {
    run.status.step = si + 1;
    switch (stage.kind) {
      case 'sequential': {
        report(stage.step.name);
        // A FanOut group not followed by Collect hands its joined outputs on.
        const res = await runStep(stage.step, lastFanOut ? joinCollected(lastFanOut) : current, `step-${stage.index + 1}-${stage.step.name}`);
        lastFanOut = undefined;
        record(stage.step, res.output);
        trace.push({ step: stage.step.name, status: 'completed' });
        break;
      }
      case 'fanout': {
        report(stage.steps.map((s) => s.step.name).join(' + '));
        const shared = current;
        const settled = await Promise.allSettled(stage.steps.map((s) => runStep(s.step, shared, `step-${s.index + 1}-${s.step.name}`)));
        const failed = settled.findIndex((x) => x.status === 'rejected');
        if (failed >= 0) throw (settled[failed] as PromiseRejectedResult).reason;
        lastFanOut = [];
        settled.forEach((x, k) => {
          const out = (x as PromiseFulfilledResult<AgentRunResult>).value.output;
          const s = stage.steps[k].step;
          if (s.output_var) vars[s.output_var] = asText(out);
          lastFanOut!.push(asText(out));
          trace.push({ step: s.name, status: 'completed' });
        });
        lastOutput = joinCollected(lastFanOut);
        break;
      }
      case 'collect': {
        report(stage.step.name);
        const joined = joinCollected(lastFanOut ?? [current]);
        lastFanOut = undefined;
        const res = await runStep(stage.step, joined, `step-${stage.index + 1}-${stage.step.name}`);
        record(stage.step, res.output);
        trace.push({ step: stage.step.name, status: 'completed' });
        break;
      }
      case 'conditional': {
        report(stage.step.name);
        const prev = lastFanOut ? joinCollected(lastFanOut) : current;
        if (!containsCI(prev, stage.condition)) {
          trace.push({ step: stage.step.name, status: 'skipped' });
          break;
        }
        lastFanOut = undefined;
        const res = await runStep(stage.step, prev, `step-${stage.index + 1}-${stage.step.name}`);
        record(stage.step, res.output);
        trace.push({ step: stage.step.name, status: 'completed' });
        break;
      }
      case 'loop': {
        report(stage.step.name);
        let loopInput = lastFanOut ? joinCollected(lastFanOut) : current;
        lastFanOut = undefined;
        let it = 0;
        let untilMet = false;
        while (it < stage.max_iterations) {
          it++;
          const res = await runStep(stage.step, loopInput, `step-${stage.index + 1}-${stage.step.name}-${it}`);
          record(stage.step, res.output);
          loopInput = current;
          if (stage.until !== undefined && containsCI(current, stage.until)) { untilMet = true; break; }
        }
        if (!untilMet && stage.until !== undefined) run.warn(`step '${stage.step.name}': loop ended by max_iterations (${stage.max_iterations}) before '${stage.until}' appeared`);
        trace.push({ step: stage.step.name, status: 'completed', iterations: it });
        break;
      }
    }
  }
  report('done');
  return run.complete(lastOutput);
}
