/**
 * fuseraft's `mapreduce` inside a strategies run: the `Splitter` is asked for a JSON object with the
 * work list at `ItemsJsonPath` (retried up to `MaxSplitterRetries` times with a correction, then
 * the run fails saying what was wrong); the `Mapper` runs once per item with the item as its only
 * input, at most `MaxConcurrency` at once (0 = unlimited), results kept in item order; the
 * `Reducer` gets the task and every mapper output and its reply is the terminal output.
 * A work list larger than one execution can hold is mapped by shard child workflows
 * (strategiesMapShardWorkflow) of at most `options.scale.batch_shard_size` items (default 500, as
 * agf.batch), and a shard continues-as-new when Temporal suggests it, so no history nears 10,240
 * events whatever the number of items.
 */
import { executeChild, ParentClosePolicy, workflowInfo } from '@temporalio/workflow';
import type { JsonObject, JsonValue } from '../../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../../shared/contract';
import { SEARCH_ATTRIBUTES } from '../../shared/contract';
import { textOf } from '../../shared/expr';
import type { MapReduceConfig } from '../../strategies/types';
import { concurrencyLimit, extractItems, mapperInput, mapPhaseMessage, mapReduceOf, reducerInput, splitterCorrection, splitterInput } from '../../strategies/phases';
import { BATCH_SHARD_SIZE, mapBounded, shardRanges } from '../../orchestration/batch';
import { OrchestratorRun } from '../orchestrator';
import { failureMessage } from '../shell/failures';
import { memberTurn, reportPhase, type MemberReply, type PhaseCtx } from './phase-run';
import { historyFull } from '../shell/continue-as-new';

/** What a shard child carries: its slice of the work list and the outputs of the items already mapped. */
interface MapShard {
  offset: number;
  items: JsonValue[];
  concurrency: number;
  mapper: string;
  mapper_id: string;
  prefix: string;
  done?: string[];
}

/** Workflow type of a map shard (exported from src/workflows/index.ts). */
export const MAP_SHARD_WORKFLOW = 'strategiesMapShardWorkflow';

/** The split phase: the work list, or a failure once every retry is used. */
async function split(ctx: PhaseCtx, mr: Required<MapReduceConfig>, task: string, prefix: string, replies: string[] = []): Promise<JsonValue[]> {
  let retry: { previous: string; correction: string } | undefined;
  const attempts = 1 + mr.MaxSplitterRetries;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    reportPhase(ctx, 'split', `${mr.Splitter}, attempt ${attempt} of ${attempts}`, { splitter: mr.Splitter, attempt, participants: [mr.Splitter, mr.Mapper, mr.Reducer] });
    const r = await memberTurn(ctx, mr.Splitter, `${prefix}split-${attempt}-${mr.Splitter}`, splitterInput(task, retry));
    replies.push(r.text);
    const got = extractItems(r.text, mr.ItemsJsonPath);
    if (got.ok) return got.items as JsonValue[];
    if (attempt === attempts) {
      throw ctx.run.fail(`mapreduce: the Splitter ${mr.Splitter} gave no work list after ${attempts} attempts (1 + MaxSplitterRetries ${mr.MaxSplitterRetries}): ${got.reason}; instruct it to reply with a JSON object whose "${mr.ItemsJsonPath}" field is an array`, 'SplitterFailed', ctx.run.status.progress);
    }
    ctx.run.warn(`mapreduce: Splitter attempt ${attempt} unusable (${got.reason}); retrying with a correction`);
    retry = { previous: r.text, correction: splitterCorrection(mr.ItemsJsonPath, got.reason) };
  }
  throw ctx.run.fail('mapreduce: unreachable', 'SplitterFailed');
}

/** The map phase: one output per item, in item order. */
async function mapItems(ctx: PhaseCtx, mr: Required<MapReduceConfig>, items: JsonValue[], prefix: string): Promise<string[]> {
  const leaf = Math.max(1, ctx.input.options?.scale?.batch_shard_size ?? BATCH_SHARD_SIZE);
  const limit = concurrencyLimit(mr.MaxConcurrency, items.length);
  let done = 0;
  const progress = (extra: JsonObject = {}) => reportPhase(ctx, 'map', `${done} of ${items.length} items mapped by ${mr.Mapper}`, { mapper: mr.Mapper, items: items.length, completed: done, max_concurrency: mr.MaxConcurrency, participants: [mr.Splitter, mr.Mapper, mr.Reducer], ...extra });
  progress();
  if (items.length <= leaf) {
    return mapBounded(items, limit, async (item, i) => {
      const r = await memberTurn(ctx, mr.Mapper, `${prefix}map-${i + 1}`, mapperInput(item), { inline: true });
      done += 1;
      progress();
      return r.text;
    });
  }
  // Shards: the total in flight stays within MaxConcurrency (shards × per-shard concurrency).
  const ranges = shardRanges(items.length, leaf);
  const perShard = Math.min(limit, leaf);
  const parallelShards = Math.max(1, Math.min(ranges.length, Math.floor(limit / perShard)));
  const parentId = workflowInfo().workflowId;
  const outs = await mapBounded(ranges, parallelShards, async (r, k): Promise<string[]> => {
    const shard: MapShard = { offset: r.start, items: items.slice(r.start, r.end), concurrency: perShard, mapper: mr.Mapper, mapper_id: ctx.agentIdOf(mr.Mapper), prefix };
    const shardInput: RunAgentInput = {
      bundle: ctx.input.bundle,
      agent_id: ctx.input.agent_id,
      input: null,
      options: { ...ctx.input.options, parent: { workflow_id: parentId, role: `${prefix}map-shard-${k + 1}` } },
      carried: { map_shard: shard as unknown as JsonObject },
    };
    let res: AgentRunResult;
    try {
      res = await executeChild<typeof strategiesMapShardWorkflow>(MAP_SHARD_WORKFLOW, {
        workflowId: `${parentId}/${prefix}map-shard-${k + 1}`,
        args: [shardInput],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        searchAttributes: { [SEARCH_ATTRIBUTES.agentId]: [ctx.input.agent_id] },
      });
    } catch (err) {
      throw ctx.run.fail(`mapreduce: map shard ${k + 1} (items ${r.start + 1}–${r.end}) failed: ${failureMessage(err)}`, 'NodeFailed', ctx.run.status.progress);
    }
    ctx.run.addUsage(res.usage);
    for (const w of res.warnings ?? []) ctx.run.warn(w);
    done += r.end - r.start;
    progress({ shards: ranges.length });
    return res.output as string[];
  });
  return outs.flat();
}

/** `task` is what the Splitter gets (the run input, or a parent conversation's transcript). */
export async function runMapReduce(ctx: PhaseCtx, config: MapReduceConfig, task: string, prefix = ''): Promise<MemberReply> {
  const mr = mapReduceOf(config);
  const replies: string[] = [];
  const items = await split(ctx, mr, task, prefix, replies);
  if (items.length === 0) ctx.run.warn(`mapreduce: the Splitter returned an empty "${mr.ItemsJsonPath}" array; the Reducer gets no mapper output`);
  const outputs = await mapItems(ctx, mr, items, prefix);
  reportPhase(ctx, 'reduce', `${mr.Reducer} reduces ${outputs.length} outputs`, { reducer: mr.Reducer, items: items.length, participants: [mr.Splitter, mr.Mapper, mr.Reducer] });
  const reduced = await memberTurn(ctx, mr.Reducer, `${prefix}reduce-${mr.Reducer}`, reducerInput(task, outputs));
  // Every Splitter reply and the map phase, for a sub-graph's parent conversation.
  return { ...reduced, messages: [...replies.map((text) => ({ agent: mr.Splitter, text })), { agent: mr.Mapper, text: mapPhaseMessage(mr.Mapper, outputs) }] };
}

/** mapBounded that starts no new item once `stop()` holds; the results are a prefix of the items. */
async function mapBoundedUntil<T, R>(items: T[], limit: number, stop: () => boolean, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let stopped = false;
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length && !stopped) {
      const i = next++;
      results[i] = await fn(items[i], i);
      if (stop()) stopped = true;
    }
  }));
  return results.slice(0, next);
}

/**
 * One shard of a map phase: the Mapper over its slice (item roles `map-<global index>`), outputs
 * returned in item order. When Temporal suggests continue-as-new no new item starts; the running
 * ones finish and the rest continue in a new run carrying the outputs so far.
 */
export async function strategiesMapShardWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const shard = input.carried?.map_shard as unknown as MapShard | undefined;
  const run = new OrchestratorRun(input, 'strategies');
  await run.init();
  if (!shard) throw run.fail('strategiesMapShardWorkflow runs only as a map shard of a mapreduce strategy (no map_shard carried)', 'WrongPattern');
  const ctx: PhaseCtx = { run, input, strategy: 'mapreduce', agentIdOf: () => shard.mapper_id };
  let mapped = shard.done?.length ?? 0;
  const total = mapped + shard.items.length;
  const outs = await mapBoundedUntil(shard.items, shard.concurrency, () => historyFull(), async (item, i) => {
    const r = await memberTurn(ctx, shard.mapper, `${shard.prefix}map-${shard.offset + i + 1}`, mapperInput(item), { inline: true });
    mapped += 1;
    reportPhase(ctx, 'map', `${mapped} of ${total} shard items mapped by ${shard.mapper}`, { mapper: shard.mapper, completed: mapped, items: total, participants: [shard.mapper] });
    return r.text;
  });
  const done = [...(shard.done ?? []), ...outs];
  if (outs.length < shard.items.length) {
    const rest: MapShard = { ...shard, offset: shard.offset + outs.length, items: shard.items.slice(outs.length), done };
    await run.continueAsNew({ map_shard: rest as unknown as JsonObject });
  }
  return run.complete(done.map(textOf) as JsonValue);
}
