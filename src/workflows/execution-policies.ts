/**
 * The Agent Format's multi-agent execution policies as Temporal workflows. Every sub-agent runs as a
 * child workflow (runChildAgent), so the whole tree is visible in the Web UI and each member keeps
 * its own bounded history.
 *
 *  agf.sequential  steps in order; input_mapping or the previous step's output; output_from (default last)
 *  agf.parallel    all agents at once; output_from (default merge, keyed in DECLARATION order)
 *  agf.loop        steps repeat until exit_condition or max_iterations (last iteration's output, warning
 *                  when the limit ended it); continue-as-new keeps every history bounded
 *  agf.batch       one child per item (`.[]`), max_batch_count, bounded concurrency, input-order results,
 *                  per-item failures reported; large batches are sharded into child workflows of ≤500 items
 *  agf.conditional first matching route, else default_agent, else a clear failure
 */
import { executeChild, patched, workflowInfo, ParentClosePolicy } from '@temporalio/workflow';
import type { BatchConfig, ConditionalConfig, JsonObject, JsonValue, LoopConfig, ParallelConfig, PolicyStep, SequentialConfig } from '../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { SEARCH_ATTRIBUTES } from '../shared/contract';
import { WORKFLOW_TYPES } from '../shared/dispatch';
import { ExecutionContext, expandBatchInputs, resolveInputMapping, PathError } from '../orchestration/paths';
import { evaluateCondition } from '../orchestration/conditions';
import { OutputSelection, OutputStrategy, parseOutputFrom, selectOutput } from '../orchestration/output-from';
import { batchConcurrency, BATCH_SHARD_SIZE, mapBounded, shardRanges, shardSizeFor } from '../orchestration/batch';
import { LoadedAgent, OrchestratorRun } from './orchestrator';
import { failureMessage } from './shell/failures';
import { PATCHES } from './patches';
import { HISTORY_EVENTS_LIMIT, historyFull } from './shell/continue-as-new';

function configOf<T>(agent: LoadedAgent, id: string, run: OrchestratorRun): T {
  if (agent.execution_policy?.id !== id) {
    throw run.fail(`agent '${agent.agent_id}' runs '${agent.execution_policy?.id}', not '${id}'`, 'WrongPolicy');
  }
  return agent.execution_policy.config as unknown as T;
}

/** Resolve output_from over the collected outputs (built-in strategy, alias or custom transform). */
async function finalOutput(
  run: OrchestratorRun,
  outputFrom: unknown,
  dflt: OutputStrategy,
  declared: string[],
  outputs: Record<string, JsonValue>,
  completionOrder: string[],
): Promise<JsonValue> {
  let sel: OutputSelection;
  try {
    sel = parseOutputFrom(outputFrom as never, dflt);
  } catch (e) {
    throw run.fail((e as Error).message, 'InvalidOutputFrom');
  }
  if (sel.kind === 'transform') {
    try {
      return await run.transform(sel.name, outputs, declared);
    } catch (err) {
      // Runs recorded before patch `transform-failure-status` failed with the raw activity failure
      // (status still `running`, no error); now the failure goes through run.fail.
      if (!patched(PATCHES.transformFailureStatus.id)) throw err;
      throw run.fail(`output_from custom_transform '${sel.name}' failed: ${failureMessage(err)}`, 'TransformFailed');
    }
  }
  try {
    return selectOutput(sel, declared, outputs, completionOrder);
  } catch (e) {
    throw run.fail((e as Error).message, 'InvalidOutputFrom');
  }
}

function memberFailure(run: OrchestratorRun, what: string, err: unknown): never {
  throw run.fail(`${what} failed: ${failureMessage(err)}`, 'MemberFailed');
}

function stepInput(run: OrchestratorRun, ctx: ExecutionContext, step: PolicyStep, fallback: JsonValue): JsonValue {
  try {
    return resolveInputMapping(ctx, step.input_mapping, fallback);
  } catch (e) {
    throw run.fail(`step '${step.agent}': ${(e as Error).message}`, 'InvalidInputMapping');
  }
}

// ---------------------------------------------------------------------------------------------

export async function agfSequentialWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'agf.sequential');
  const agent = await run.init();
  const cfg = configOf<SequentialConfig>(agent, 'agf.sequential', run);
  const ctx: ExecutionContext = { parent: { input: input.input }, outputs: {} };
  const declared: string[] = [];
  let previous: JsonValue = input.input;
  for (const [i, step] of cfg.steps.entries()) {
    run.status.step = i + 1;
    run.status.progress = { step: i + 1, of: cfg.steps.length, agent: step.agent };
    const stepIn = stepInput(run, ctx, step, previous);
    let res: AgentRunResult;
    try {
      res = await run.runMember({ agent_id: run.agentIdFor(step.agent), input: stepIn, role: `step-${i + 1}-${step.agent}` });
    } catch (err) {
      memberFailure(run, `step ${i + 1} (${step.agent})`, err);
    }
    ctx.outputs[step.agent] = res.output;
    if (!declared.includes(step.agent)) declared.push(step.agent);
    previous = res.output;
  }
  return run.complete(await finalOutput(run, cfg.output_from, 'last', declared, ctx.outputs, declared));
}

// ---------------------------------------------------------------------------------------------

export async function agfParallelWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'agf.parallel');
  const agent = await run.init();
  const cfg = configOf<ParallelConfig>(agent, 'agf.parallel', run);
  const ctx: ExecutionContext = { parent: { input: input.input }, outputs: {} };
  const declared = cfg.agents.map((s) => s.agent);
  const completion: string[] = [];
  const failures: string[] = [];
  run.status.progress = { running: declared.length, completed: 0, of: declared.length };
  await Promise.all(
    cfg.agents.map(async (step, i) => {
      try {
        const res = await run.runMember({ agent_id: run.agentIdFor(step.agent), input: stepInput(run, ctx, step, input.input), role: `agent-${i + 1}-${step.agent}` });
        ctx.outputs[step.agent] = res.output;
        completion.push(step.agent);
        run.status.progress = { running: declared.length - completion.length - failures.length, completed: completion.length, of: declared.length };
      } catch (err) {
        failures.push(`${step.agent}: ${failureMessage(err)}`);
      }
    }),
  );
  if (failures.length) throw run.fail(`agf.parallel: ${failures.length} of ${declared.length} agents failed: ${failures.join('; ')}`, 'MemberFailed');
  return run.complete(await finalOutput(run, cfg.output_from, 'merge', declared, ctx.outputs, completion));
}

// ---------------------------------------------------------------------------------------------

interface LoopCarry {
  iteration: number;
  /** The last step's output of the latest iteration (the next iteration's first input without mapping). */
  last_output?: JsonValue;
  outputs: Record<string, JsonValue>;
  iter_outputs: Record<string, JsonValue>;
  iter_order: string[];
}


export async function agfLoopWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'agf.loop');
  const agent = await run.init();
  const cfg = configOf<LoopConfig>(agent, 'agf.loop', run);
  const carried = (input.carried?.loop as unknown as LoopCarry | undefined) ?? { iteration: 0, outputs: {}, iter_outputs: {}, iter_order: [] };
  const ctx: ExecutionContext = { parent: { input: input.input }, outputs: { ...carried.outputs } };
  let iterOutputs: Record<string, JsonValue> = { ...carried.iter_outputs };
  let iterOrder: string[] = [...carried.iter_order];
  let iteration = carried.iteration;
  let lastOutput: JsonValue | undefined = carried.last_output;
  let exited = false;
  const max = Math.max(1, cfg.max_iterations);
  while (iteration < max) {
    iteration++;
    run.status.step = iteration;
    run.status.progress = { iteration, max_iterations: max };
    iterOutputs = {};
    iterOrder = [];
    // Without input_mapping a step gets the previous step's output; the first step gets the parent
    // input in the first iteration and the previous iteration's last output afterwards.
    let previous: JsonValue = lastOutput === undefined ? input.input : lastOutput;
    for (const [i, step] of cfg.steps.entries()) {
      let res: AgentRunResult;
      try {
        res = await run.runMember({ agent_id: run.agentIdFor(step.agent), input: stepInput(run, ctx, step, previous), role: `iter-${iteration}-step-${i + 1}-${step.agent}` });
      } catch (err) {
        memberFailure(run, `iteration ${iteration}, step ${i + 1} (${step.agent})`, err);
      }
      ctx.outputs[step.agent] = res.output;
      iterOutputs[step.agent] = res.output;
      if (!iterOrder.includes(step.agent)) iterOrder.push(step.agent);
      previous = res.output;
    }
    lastOutput = previous;
    if (cfg.exit_condition && evaluateCondition(cfg.exit_condition, ctx)) {
      exited = true;
      break;
    }
    if (iteration < max && historyFull(input.options?.scale?.loop_history_events ?? HISTORY_EVENTS_LIMIT)) {
      const carry: LoopCarry = { iteration, last_output: lastOutput ?? null, outputs: ctx.outputs, iter_outputs: iterOutputs, iter_order: iterOrder };
      // A pause that arrived during this run holds the next run too (members start only after resume).
      await run.continueAsNew({ loop: carry as unknown as JsonObject });
    }
  }
  if (!exited) {
    run.warn(
      cfg.exit_condition
        ? `loop ended by max_iterations (${max}) before exit_condition was met`
        : `loop ended by max_iterations (${max}) (no exit_condition)`,
    );
  }
  run.status.progress = { iteration, max_iterations: max, ended_by: exited ? 'exit_condition' : 'max_iterations' };
  const declared = cfg.steps.map((s) => s.agent).filter((a, i, arr) => arr.indexOf(a) === i);
  return run.complete(await finalOutput(run, cfg.output_from, 'last', declared, iterOutputs, iterOrder));
}

// ---------------------------------------------------------------------------------------------

type ItemResult = { ok: true; output: JsonValue } | { ok: false; error: string };

interface BatchShard {
  offset: number;
  items: JsonValue[];
  concurrency: number;
  /** Results of the shard's earlier items, from the runs before a continue-as-new (input order). */
  done?: ItemResult[];
}

/**
 * mapBounded that starts no new item once `stop()` holds (checked after each completion; the
 * items already running finish). Items start in input order, so the results are a prefix.
 */
async function mapBoundedUntil<T, R>(items: T[], limit: number, stop: () => boolean, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let stopped = false;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length && !stopped) {
      const i = next++;
      results[i] = await fn(items[i], i);
      if (stop()) stopped = true;
    }
  });
  await Promise.all(workers);
  return results.slice(0, next);
}

export async function agfBatchWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const shard = input.carried?.batch_shard as unknown as BatchShard | undefined;
  const run = new OrchestratorRun(input, 'agf.batch');
  const agent = await run.init();
  const cfg = configOf<BatchConfig>(agent, 'agf.batch', run);
  const memberId = run.agentIdFor(cfg.agent);

  const runItems = async (items: JsonValue[], offset: number, concurrency: number, stop?: () => boolean): Promise<ItemResult[]> => {
    let done = 0;
    let failed = 0;
    const one = async (item: JsonValue, i: number): Promise<ItemResult> => {
      try {
        const res = await run.runMember({ agent_id: memberId, input: item, role: `item-${offset + i}`, inline: true });
        done++;
        run.status.progress = { completed: done, failed, of: items.length };
        return { ok: true, output: res.output };
      } catch (err) {
        failed++;
        run.status.progress = { completed: done, failed, of: items.length };
        return { ok: false, error: failureMessage(err) };
      }
    };
    // Patch `lean-inline-members`: the same, as one `.then` on the member (each promise a workflow creates costs its task time).
    const lean = (item: JsonValue, i: number): Promise<ItemResult> =>
      run.runMember({ agent_id: memberId, input: item, role: `item-${offset + i}`, inline: true }).then(
        (res): ItemResult => {
          done++;
          run.status.progress = { completed: done, failed, of: items.length };
          return { ok: true, output: res.output };
        },
        (err): ItemResult => {
          failed++;
          run.status.progress = { completed: done, failed, of: items.length };
          return { ok: false, error: failureMessage(err) };
        },
      );
    const each = (item: JsonValue, i: number): Promise<ItemResult> => (run.leanMembers() ? lean(item, i) : one(item, i));
    return stop ? mapBoundedUntil(items, concurrency, stop, each) : mapBounded(items, concurrency, each);
  };

  if (shard) {
    // A shard child: run its items and hand the raw per-item results back to the parent. When
    // Temporal suggests continue-as-new (patch `batch-shard-continue-as-new`; runs before it ignored
    // the suggestion), no new item starts, the running ones finish, and the items not started
    // continue in a new run that carries the results so far.
    const stop = () => historyFull() && patched(PATCHES.batchShardContinueAsNew.id);
    const results = await runItems(shard.items, shard.offset, shard.concurrency, stop);
    const done = [...(shard.done ?? []), ...results];
    if (results.length < shard.items.length) {
      const rest: BatchShard = { offset: shard.offset + results.length, items: shard.items.slice(results.length), concurrency: shard.concurrency, done };
      await run.continueAsNew({ batch_shard: rest as unknown as JsonObject });
    }
    return run.result(done as unknown as JsonValue);
  }

  let items: JsonObject[];
  try {
    items = expandBatchInputs({ parent: { input: input.input }, outputs: {} }, cfg.input_mapping);
  } catch (e) {
    throw run.fail(`agf.batch: ${(e as Error).message}`, e instanceof PathError ? 'InvalidInputMapping' : 'BatchFailed');
  }
  if (cfg.max_batch_count !== undefined && items.length > cfg.max_batch_count) {
    throw run.fail(`agf.batch: ${items.length} items exceed max_batch_count (${cfg.max_batch_count})`, 'BatchTooLarge');
  }
  const concurrency = batchConcurrency(cfg.max_concurrency);
  let results: ItemResult[];
  const leafSize = Math.max(1, input.options?.scale?.batch_shard_size ?? BATCH_SHARD_SIZE);
  if (items.length <= leafSize) {
    results = await runItems(items, 0, concurrency);
  } else {
    const size = shardSizeFor(items.length, leafSize);
    const ranges = shardRanges(items.length, size);
    const parallelShards = Math.min(ranges.length, Math.max(1, Math.floor(concurrency / 25)));
    const perShard = Math.max(1, Math.floor(concurrency / parallelShards));
    const parentId = workflowInfo().workflowId;
    let shardsDone = 0;
    const shardResults = await mapBounded(ranges, parallelShards, async (r, k): Promise<ItemResult[]> => {
      const shardInput: RunAgentInput = {
        bundle: input.bundle,
        agent_id: input.agent_id,
        // The items travel in `carried` (only this shard's slice); the full input stays out of the shard's history.
        input: null,
        options: { ...input.options, parent: { workflow_id: parentId, role: `shard-${k}` } },
        carried: { batch_shard: { offset: r.start, items: items.slice(r.start, r.end), concurrency: perShard } as unknown as JsonObject },
      };
      try {
        const res = await executeChild<typeof agfBatchWorkflow>(WORKFLOW_TYPES['agf.batch'], {
          workflowId: `${parentId}/shard-${k}`,
          args: [shardInput],
          parentClosePolicy: ParentClosePolicy.TERMINATE,
          searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [input.agent_id] },
        });
        run.addUsage(res.usage);
        for (const w of res.warnings ?? []) run.warn(w);
        shardsDone++;
        run.status.progress = { shards_completed: shardsDone, shards: ranges.length, items: items.length };
        return res.output as unknown as ItemResult[];
      } catch (err) {
        const msg = `shard ${k} failed: ${failureMessage(err)}`;
        return Array.from({ length: r.end - r.start }, () => ({ ok: false as const, error: msg }));
      }
    });
    results = shardResults.flat();
  }
  const output: JsonValue[] = [];
  const failures: { index: number; error: string }[] = [];
  results.forEach((r, index) => {
    if (r.ok) output.push(r.output);
    else {
      output.push(null);
      failures.push({ index, error: r.error });
    }
  });
  if (failures.length) {
    run.warn(`agf.batch: ${failures.length} of ${items.length} items failed (their results are null)`);
    for (const f of failures.slice(0, 20)) run.warn(`item ${f.index} failed: ${f.error}`);
    if (failures.length > 20) run.warn(`… and ${failures.length - 20} more failed items (see status.progress.failures)`);
  }
  run.status.progress = {
    completed: items.length - failures.length,
    failed: failures.length,
    of: items.length,
    failures: failures.slice(0, 1000) as unknown as JsonValue[],
  };
  const result = await run.complete(output);
  return { ...result, ...(failures.length ? { item_errors: failures } : {}) } as AgentRunResult;
}

// ---------------------------------------------------------------------------------------------

export async function agfConditionalWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'agf.conditional');
  const agent = await run.init();
  const cfg = configOf<ConditionalConfig>(agent, 'agf.conditional', run);
  const ctx: ExecutionContext = { parent: { input: input.input }, outputs: {} };
  const idx = cfg.routes.findIndex((r) => evaluateCondition(r.when, ctx));
  let alias: string;
  let memberInput: JsonValue;
  if (idx >= 0) {
    const route = cfg.routes[idx];
    alias = route.agent;
    memberInput = stepInput(run, ctx, { agent: route.agent, input_mapping: route.input_mapping }, input.input);
    run.status.progress = { route: idx, agent: alias };
  } else if (cfg.default_agent) {
    alias = cfg.default_agent;
    memberInput = input.input;
    run.status.progress = { route: 'default', agent: alias };
  } else {
    throw run.fail(
      `agf.conditional: no route matched (${cfg.routes.length} route(s): ${cfg.routes.map((r) => r.agent).join(', ')}) and no default_agent is configured`,
      'NoRouteMatched',
    );
  }
  let res: AgentRunResult;
  try {
    res = await run.runMember({ agent_id: run.agentIdFor(alias), input: memberInput, role: `route-${alias}` });
  } catch (err) {
    memberFailure(run, `route '${alias}'`, err);
  }
  return run.complete(res.output);
}
