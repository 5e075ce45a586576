/**
 * Temporal's OWN continue-as-new suggestion, not a test knob, drives continue-as-new in a react run,
 * an agf.loop and an agf.batch shard. This file starts its own dev server with the server's
 * history-count threshold lowered through dynamic config (`limit.historyCount.suggestContinueAsNew`,
 * Temporal's default 4,096 events), so `workflowInfo().continueAsNewSuggested` turns true after a
 * few turns, iterations or items. The runs pass neither `carried.continue_as_new_every` nor
 * `options.scale.loop_history_events` (agf.loop's own limit stays 4,000 events).
 *
 * Every fact asserted is read from the runs' histories: the chain has several executions, each
 * continued execution saw `suggestContinueAsNew` on a workflow task started event once it reached
 * the limit, each stays near the limit, and the work done across the chain is exactly the expected
 * work (no turn, iteration or item lost or repeated).
 */
import * as path from 'path';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { randomUUID } from 'crypto';
import type { ExecutionPolicy, JsonValue } from '../../src/compiled/types';
import type { AgentRunResult, RunAgentInput, RunStatus } from '../../src/shared/contract';
import { startDevServer, DevServer } from '../../src/platform/temporal-dev-server';
import { createActivities } from '../../src/activities';
import { workflowTypeFor } from '../../src/shared/dispatch';
import { createTestWorker, TestTemporal } from '../helpers/temporal';
import { agent as reactAgent, builtinTool, bundleOf, scriptedModel } from './builders';
import { agent, bundle, byInput, locals, store, testStore } from '../orchestration/builders';

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The server suggests continue-as-new once a run's history holds this many events. */
const SUGGEST_AT = 40;
const TOO_MANY_HISTORY_EVENTS = 2; // temporal.api.enums.v1.SuggestContinueAsNewReason

let server: DevServer;
let t: TestTemporal;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
  server = await startDevServer({
    headless: true,
    fastSqlite: true,
    logFile: path.join(process.env.LOOM_TEST_DIR ?? '.loom', 'temporal-suggest-can.log'),
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_AT },
  });
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  t = {
    client: new Client({ connection, namespace: 'default' }),
    connection,
    nativeConnection,
    taskQueue: `suggest-can-${randomUUID()}`,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}, 120000);

afterAll(async () => {
  await t?.close();
  await server?.stop();
});

async function withWorker<T>(fn: () => Promise<T>): Promise<T> {
  const worker: Worker = await createTestWorker(t, createActivities({ store: testStore() }));
  return worker.runUntil(fn);
}

async function start(type: string, input: RunAgentInput) {
  return t.client.workflow.start(type, { taskQueue: t.taskQueue, workflowId: `${input.agent_id}-${randomUUID().slice(0, 8)}`, args: [input] });
}

const events = (runs: History[]): HistoryEvent[] => runs.flatMap((h) => h.events ?? []);
const lastEvent = (h: History): HistoryEvent => h.events![h.events!.length - 1];
const eventId = (e: HistoryEvent): number => Number(e.eventId);
const decode = (p: { data?: Uint8Array | null } | undefined | null): any => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

/** Histories of every execution of a (closed) chain, first to last, following ContinuedAsNew. */
async function executions(workflowId: string, firstRunId: string): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const hist: History = await t.client.workflow.getHandle(workflowId, runId).fetchHistory();
    out.push(hist);
    runId = lastEvent(hist).workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

/**
 * The facts every chain must show: more than one execution; each one that continued as new was
 * told to by the server (suggestContinueAsNew on a workflow task started event, never before the
 * history reached SUGGEST_AT events, with the event-count reason) and stayed within `slack` events
 * of the limit; the last one completed.
 */
function expectSuggestedChain(runs: History[], slack: number): void {
  expect(runs.length).toBeGreaterThan(1);
  for (const [i, run] of runs.entries()) {
    const evs = run.events ?? [];
    const last = lastEvent(run);
    if (i < runs.length - 1) expect(last.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    else expect(last.workflowExecutionCompletedEventAttributes).toBeTruthy();
    const started = evs.filter((e) => e.workflowTaskStartedEventAttributes);
    const suggested = started.filter((e) => e.workflowTaskStartedEventAttributes!.suggestContinueAsNew);
    for (const e of started.filter((s) => eventId(s) < SUGGEST_AT)) expect(e.workflowTaskStartedEventAttributes!.suggestContinueAsNew).toBeFalsy();
    if (i < runs.length - 1) {
      expect(suggested.length).toBeGreaterThan(0);
      expect(suggested[0].workflowTaskStartedEventAttributes!.suggestContinueAsNewReasons).toContain(TOO_MANY_HISTORY_EVENTS);
    }
    expect(evs.length).toBeLessThanOrEqual(SUGGEST_AT + slack);
  }
}

/** Workflow ids of the children started across a chain, in start order. */
const childrenStarted = (runs: History[]): string[] =>
  events(runs).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!);

test('a react run continues-as-new when Temporal suggests it, and no turn is lost or repeated', async () => {
  const TURNS = 12;
  const a = reactAgent({
    agent_id: 'suggested-react',
    model: scriptedModel({
      rules: [{ when: { turn: TURNS }, reply: { content: 'finished after {{turn}} turns; last {{last_tool_result}}' } }],
      turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 't{{turn}}' } }] }],
    }),
    tools: [builtinTool('echo')],
  });
  const ref = await store(bundleOf(a));
  await withWorker(async () => {
    // No carried.continue_as_new_every: only Temporal's suggestion can end an execution.
    const h = await start('agfReactWorkflow', { bundle: ref, agent_id: a.agent_id, input: 'go' });
    const res = (await h.result()) as AgentRunResult;
    expect(res.output).toBe(`finished after ${TURNS} turns; last t${TURNS - 1}`);
    const st = await h.query<RunStatus>('status');
    expect(st).toMatchObject({ state: 'completed', turn: TURNS + 1, tool_calls_made: TURNS });

    const runs = await executions(h.workflowId, h.firstExecutionRunId);
    // A run overshoots by at most one turn (model turn + tool call, each with its workflow task: ~12
    // events; 8 seen). Without continue-as-new this run's history would hold ~150 events.
    expectSuggestedChain(runs, 15);
    const scheduled = events(runs).map((e) => e.activityTaskScheduledEventAttributes).filter((x) => !!x);
    expect(scheduled.filter((s) => s!.activityType!.name === 'modelTurn')).toHaveLength(TURNS + 1);
    // Each turn's tool call ran exactly once, in turn order, across the executions.
    const echoed = scheduled.filter((s) => s!.activityType!.name === 'runTool').map((s) => decode(s!.input!.payloads![0]).args.text);
    expect(echoed).toEqual(Array.from({ length: TURNS }, (_, k) => `t${k}`));
  });
});

const orch = (id: string, policy: ExecutionPolicy, aliases: string[]) => agent({ id, policy, local_agents: locals(...aliases) });

test('an agf.loop continues-as-new when Temporal suggests it, and every iteration runs once in order', async () => {
  const ITERATIONS = 8;
  const b = bundle('suggested-loop', [
    orch('suggested-loop', { id: 'agf.loop', config: { steps: [{ agent: 'writer' }], max_iterations: ITERATIONS, output_from: 'writer' } }, ['writer']),
    // Iteration k reads iteration k-1's draft `n{k-1}` (across continue-as-new too) and writes `n{k}`.
    agent({ id: 'writer', model: byInput(Array.from({ length: ITERATIONS - 1 }, (_, j) => ({ contains: `"n${j + 1}"`, reply: { content: { draft: `n${j + 2}` } } })), { content: { draft: 'n1' } }) }),
  ]);
  const ref = await store(b);
  await withWorker(async () => {
    // No options.scale.loop_history_events: the loop's own limit stays at 4,000 events.
    const h = await start(workflowTypeFor(b.agents[b.root])!, { bundle: ref, agent_id: b.root, input: {} });
    const res = (await h.result()) as AgentRunResult;
    expect(res.output).toEqual({ draft: `n${ITERATIONS}` });
    expect((await h.query<RunStatus>('status')).progress).toMatchObject({ iteration: ITERATIONS, ended_by: 'max_iterations' });

    const runs = await executions(h.workflowId, h.firstExecutionRunId);
    // A run overshoots by at most one iteration (a member child workflow: ~8 events; 5 seen).
    // Without continue-as-new this run's history would hold ~70 events.
    expectSuggestedChain(runs, 15);
    expect(childrenStarted(runs)).toEqual(Array.from({ length: ITERATIONS }, (_, k) => `${h.workflowId}/iter-${k + 1}-step-1-writer`));
  });
});

test('an agf.batch shard continues-as-new when Temporal suggests it, carrying its results: every item runs once', async () => {
  const ITEMS = 24;
  const b = bundle('suggested-batch', [
    orch('suggested-batch', { id: 'agf.batch', config: { agent: 'item_processor', input_mapping: { item: 'parent.input.items.[].value' }, max_concurrency: 2 } }, ['item_processor']),
    agent({ id: 'item_processor', model: byInput([{ contains: 'poison', reply: { error: { status: 400, message: 'cannot process poison' } } }], { content: 'done {{input.item}}' }) }),
  ]);
  // Item 1 fails in the first execution of shard 0: its failure must survive continue-as-new too.
  const items = Array.from({ length: ITEMS }, (_, i) => ({ value: i === 1 ? 'poison' : `v${i}` }));
  const ref = await store(b);
  await withWorker(async () => {
    // Two shards of 12 items, members two at a time (batch_shard_size is how shards exist at all; it
    // does not trigger continue-as-new).
    const h = await start(workflowTypeFor(b.agents[b.root])!, { bundle: ref, agent_id: b.root, input: { items } as unknown as JsonValue, options: { scale: { batch_shard_size: ITEMS / 2 } } });
    const res = (await h.result()) as AgentRunResult & { item_errors?: { index: number; error: string }[] };
    expect(res.output).toEqual(items.map((it) => (it.value === 'poison' ? null : `done ${it.value}`)));
    expect(res.item_errors).toEqual([{ index: 1, error: expect.stringMatching(/poison/) }]);

    const parent = await executions(h.workflowId, h.firstExecutionRunId);
    const shardStarts = events(parent).filter((e) => e.childWorkflowExecutionStartedEventAttributes).map((e) => e.childWorkflowExecutionStartedEventAttributes!.workflowExecution!);
    expect(shardStarts.map((x) => x.workflowId).sort()).toEqual([`${h.workflowId}/shard-0`, `${h.workflowId}/shard-1`]);
    const members: string[] = [];
    let usageOfMembers = 0;
    for (const shard of shardStarts) {
      const runs = await executions(shard.workflowId!, shard.runId!);
      // A run overshoots by the member still running when the suggestion came, the workflow tasks
      // that saw members finish and the patch marker (12 to 15 seen). Without continue-as-new a
      // shard's history would hold ~85 events.
      expectSuggestedChain(runs, 20);
      // Every execution that continued as new took the patched path.
      for (const run of runs.slice(0, -1)) {
        const patches = (run.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').map((e) => decode(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]).id);
        expect(patches).toContain('batch-shard-continue-as-new');
      }
      members.push(...childrenStarted(runs));
    }
    // Every item ran exactly once, under the shard that owns it.
    expect(members.sort()).toEqual(
      Array.from({ length: ITEMS }, (_, i) => `${h.workflowId}/shard-${i < ITEMS / 2 ? 0 : 1}/item-${i}`).sort(),
    );
    // Token usage carried across the shards' executions: the batch reports what its members used.
    for (const id of members) {
      if (id.endsWith('/item-1')) continue;
      usageOfMembers += ((await t.client.workflow.getHandle(id).result()) as AgentRunResult).usage.total_tokens;
    }
    expect(usageOfMembers).toBeGreaterThan(0);
    expect(res.usage.total_tokens).toBe(usageOfMembers);
  });
});
