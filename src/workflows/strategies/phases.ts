/**
 * The phase-driven fuseraft strategies of a strategies run, as one dispatch table: a top-level
 * `Selection.Type` of scattergather, mapreduce, adversarial, llm or magentic runs as the whole strategies run;
 * a keyword-graph node's `MapReduce` or `ScatterGather` sub-graph runs as one step of the graph.
 */
import { patched } from '@temporalio/workflow';
import type { JsonValue, StrategiesPattern } from '../../compiled/types';
import type { RunAgentInput } from '../../shared/contract';
import { textOf } from '../../shared/expr';
import type { ExecutedPhaseType } from '../../strategies/phases';
import type { MapReduceConfig, ScatterGatherConfig, StrategyConfig } from '../../strategies/types';
import type { OrchestratorRun } from '../orchestrator';
import { runAdversarial } from './adversarial';
import { runLlmSelection } from './llm';
import { runMagentic } from './magentic';
import { runMapReduce } from './map-reduce';
import { phaseWorkspace, type MemberReply, type PhaseCtx } from './phase-run';
import { runScatterGather } from './scatter-gather';
import { PATCHES } from '../patches';

const PHASES: Record<ExecutedPhaseType, (ctx: PhaseCtx, config: StrategyConfig, task: string, names: string[]) => Promise<MemberReply>> = {
  scattergather: (ctx, c, task) => runScatterGather(ctx, c.Selection.ScatterGather!, task),
  mapreduce: (ctx, c, task) => runMapReduce(ctx, c.Selection.MapReduce!, task),
  adversarial: (ctx, c, task) => runAdversarial(ctx, c.Selection.Adversarial!, task),
  llm: (ctx, c, task, names) => runLlmSelection(ctx, c, names, task),
  magentic: (ctx, c, task, names) => runMagentic(ctx, c.Selection.Magentic!, names, task),
};

/** Run a phase strategy as the whole run; returns the terminal output. Termination is not evaluated. */
export async function runPhaseStrategy(run: OrchestratorRun, input: RunAgentInput, pattern: StrategiesPattern, type: ExecutedPhaseType): Promise<JsonValue> {
  const config = pattern.config as unknown as StrategyConfig;
  const workspace = await phaseWorkspace(input);
  const ctx: PhaseCtx = { run, input, strategy: type, agentIdOf: agentIdOf(pattern), ...(workspace ? { workspace } : {}) };
  const last = await PHASES[type](ctx, config, textOf(input.input), pattern.agents.map((a) => a.name));
  // llm selection says itself which termination stopped it.
  run.status.progress = { ...(run.status.progress ?? {}), stopped: run.status.progress?.stopped ?? `complete: ${last.agent} gave the terminal output` };
  return last.output;
}

function agentIdOf(pattern: StrategiesPattern): (name: string) => string {
  return (name) => pattern.agents.find((a) => a.name === name)?.agent_id ?? name;
}

/**
 * A `MapReduce` or `ScatterGather` sub-graph of a keyword graph (fuseraft's "Hierarchical sub-graphs"):
 * the nested strategy runs with `task` (the parent conversation so far) as its task, its agent
 * turns are member runs of this workflow named under `prefix`, and its terminal reply is returned
 * for the parent to record as the node's turn (keyword detection and edge routing read it).
 */
export async function runPhaseSubGraph(
  run: OrchestratorRun, input: RunAgentInput, agentIdOf: (name: string) => string,
  id: string, spec: { MapReduce?: MapReduceConfig; ScatterGather?: ScatterGatherConfig }, task: string, prefix: string, shared?: string,
): Promise<MemberReply> {
  // The graph's shared workspace (runs on patch strategies-evidence), for runs started on patch phases-workspace.
  const workspace = shared && patched(PATCHES.phasesWorkspace.id) ? shared : undefined;
  const ctx: PhaseCtx = { run, input, strategy: `sub-graph ${id} (${spec.MapReduce ? 'mapreduce' : 'scattergather'})`, agentIdOf, ...(workspace ? { workspace } : {}) };
  if (spec.MapReduce) return runMapReduce(ctx, spec.MapReduce, task, prefix);
  if (spec.ScatterGather) return runScatterGather(ctx, spec.ScatterGather, task, prefix);
  throw run.fail(`sub-graph ${id} sets none of Graph, MapReduce, ScatterGather`, 'StrategyFailed');
}
