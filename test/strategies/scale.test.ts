/**
 * Seed 002 routing strategies at scale, on a real dev server: a round-robin of 3 agents continues
 * as new over and over with its counters, router state and stored transcript, and no execution
 * grows past its continue-as-new threshold by more than the turn that crossed it (counted on every
 * run's own history), so none nears the 10,240-event bound; the transcript never enters a history
 * (the member inputs are stored messages). The threshold is lowered to LIMIT events
 * (`options.scale.loop_history_events`) so a few dozen turns make several executions; the same
 * round-robin at 2,000 turns on the server's own continue-as-new suggestion is a benchmark
 * (`npm run bench:strategies`, which prints executions and the largest one).
 * A statemachine fan-out to 20 parallel branches writes all 20 first messages in one activity, runs
 * them as 20 members and merges them for the join.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { ScriptedModelConfig, StrategiesPattern } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { unionText } from '../../src/strategies';
import { agent, answers, bundle, byInput } from '../orchestration/builders';
import { Harness, startHarness } from '../orchestration/harness';

jest.setTimeout(10 * 60 * 1000);

let h: Harness;
beforeAll(async () => { h = await startHarness('strat-scale'); });
afterAll(async () => { await h?.close(); });

function team(root: string, config: Record<string, unknown>, members: Record<string, ScriptedModelConfig>) {
  const pattern: StrategiesPattern = { type: 'strategies', agents: Object.keys(members).map((name) => ({ name, agent_id: `m-${name.toLowerCase()}` })), config: config as StrategiesPattern['config'] };
  return bundle(root, [
    agent({ id: root, model: answers('orchestrator'), pattern }),
    ...Object.entries(members).map(([name, model]) => agent({ id: `m-${name.toLowerCase()}`, model })),
  ]);
}

type History = temporal.api.history.v1.IHistory;

/** Every execution of the workflow, oldest first (continue-as-new chain walked back from the latest). */
async function executions(wf: WorkflowHandle): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined = (await wf.describe()).runId;
  while (runId) {
    const hist: History = await h.t.client.workflow.getHandle(wf.workflowId, runId).fetchHistory();
    out.unshift(hist);
    runId = hist.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return out;
}

const children = (hist: History): string[] =>
  (hist.events ?? []).map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId).filter((id): id is string => !!id);
const activities = (hist: History, type: string): number =>
  (hist.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).length;

/** The lowered continue-as-new threshold (history events) and the most one turn adds past it. */
const LIMIT = 200;
const TURN_EVENTS = 40;

test('roundrobin of 3 agents for 62 iterations continuing as new past 200 events: every execution within its threshold, every turn once, the transcript only in the store', async () => {
  const N = 62;
  const b = team('rr-62', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: N } }, {
    A: answers('a'), B: answers('b'), C: byInput([{ contains: '[B]\nb\n\n[C]', reply: { content: 'c saw b' } }], { content: 'c blind' }),
  });
  const wf = await h.start(b, 'go', { options: { scale: { loop_history_events: LIMIT } } });
  const res = (await wf.result()) as AgentRunResult;
  // 62 = 3 * 20 + 2: the last turn is B's.
  expect(res.output).toBe('b');
  const runs = await executions(wf);
  const sizes = runs.map((r) => r.events?.length ?? 0);
  console.log(`rr-62: ${runs.length} executions, events per execution ${sizes.join(', ')} (max ${Math.max(...sizes)})`);
  // Several continue-as-new hand-overs, each carrying counters, router state and the transcript head.
  expect(runs.length).toBeGreaterThanOrEqual(3);
  for (const s of sizes) expect(s).toBeLessThanOrEqual(LIMIT + TURN_EVENTS);
  for (const s of sizes) expect(s).toBeLessThanOrEqual(10240);
  // Every turn once, in order, across the executions.
  const roles = runs.flatMap(children).map((id) => id.slice(wf.workflowId.length + 1));
  expect(roles).toHaveLength(N);
  expect(roles).toEqual(Array.from({ length: N }, (_, i) => `turn-${i + 1}-${'ABC'[i % 3]}`));
  // One transcript activity per turn; no history of the root holds the conversation text.
  expect(runs.reduce((n, r) => n + activities(r, 'strategyMemberInputs'), 0)).toBe(N);
  for (const r of runs) expect(JSON.stringify(r)).not.toContain('Conversation so far');
  const st = await wf.query(statusQuery);
  expect(st.progress).toMatchObject({ iteration: N, transcript_entries: N });
  // A C turn of the last execution read the recent window from the store (B's turn, then C's own earlier reply).
  const lastC = runs[runs.length - 1].events!.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId).filter((id): id is string => !!id && id.endsWith('-C'));
  expect(lastC.length).toBeGreaterThan(0);
  const cTurn = await h.t.client.workflow.getHandle(lastC[lastC.length - 1]).result() as AgentRunResult;
  expect(cTurn.output).toBe('c saw b');
});

test('statemachine fan-out to 20 branches: one activity writes their inputs, 20 members, merged for the join', async () => {
  const names = Array.from({ length: 20 }, (_, i) => `W${i + 1}`);
  const states: Record<string, unknown> = {
    Planning: { Agent: 'Planner', Transitions: [{ To: 'Integration', Targets: names.map((n) => `S${n}`), Parallel: true, Signal: 'FAN OUT', Merge: { Strategy: 'union' } }] },
    Integration: { Agent: 'Integrator', Terminal: true },
  };
  for (const n of names) states[`S${n}`] = { Agent: n };
  const members: Record<string, ScriptedModelConfig> = { Planner: answers('Twenty parts.\nFAN OUT') };
  for (const n of names) members[n] = byInput([{ contains: '[Planner]\nTwenty parts.', reply: { content: `${n.toLowerCase()} done` } }], { content: `${n.toLowerCase()} blind` });
  // The Integrator says "all 20" only when the merged entry holds every branch's output, in branch order.
  const merged = unionText(names.map((n) => ({ position: `S${n}`, agent: n, text: `${n.toLowerCase()} done` })));
  members.Integrator = byInput([{ contains: `[orchestrator]\n[Merged output of ${names.map((n) => `S${n}`).join(', ')} (union)]\n${merged}`, reply: { content: 'integrated all 20' } }], { content: 'integrated a partial merge' });
  const b = team('sm-fan-20', { Selection: { Type: 'statemachine', StateMachine: { Initial: 'Planning', States: states } }, Termination: { Type: 'maxiterations', MaxIterations: 22 } }, members);
  const wf = await h.start(b, 'build it');
  const res = (await wf.result()) as AgentRunResult;
  expect(res.output).toBe('integrated all 20');
  const [run] = await executions(wf);
  // The branches start concurrently (any order in history); each once.
  const roles = children(run).map((id) => id.slice(wf.workflowId.length + 1));
  expect(roles[0]).toBe('turn-1-Planner');
  expect(roles.slice(1, 21).sort()).toEqual(names.map((n, i) => `turn-2-branch-${i}-S${n}`).sort());
  expect(roles.slice(21)).toEqual(['turn-22-Integrator']);
  // Planner, the 20 branches together, the Integrator; the activity and child summaries (Web UI) name who speaks.
  expect(activities(run, 'strategyMemberInputs')).toBe(3);
  const summaries = (run.events ?? []).map((e) => e.userMetadata?.summary?.data).filter((d): d is Uint8Array => !!d).map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as string);
  expect(summaries).toEqual(expect.arrayContaining([
    'turn 1: Planner at Planning: input',
    expect.stringMatching(/^fan-out W1 at SW1, W2 at SW2, .*W20 at SW20: inputs$/),
    'turn 2: W7 at SW7 (m-w7), route: parallel branch',
    expect.stringMatching(/^turn 22: Integrator at Integration \(m-integrator\), route: .+/),
  ]));
  // Every branch saw the Planner's turn; the Integrator saw every branch's output in the merged entry.
  for (const [i, n] of names.entries()) {
    const out = (await h.t.client.workflow.getHandle(`${wf.workflowId}/turn-2-branch-${i}-S${n}`).result()) as AgentRunResult;
    expect(out.output).toBe(`${n.toLowerCase()} done`);
  }
  expect(JSON.stringify(run)).not.toContain('Conversation so far');
});
