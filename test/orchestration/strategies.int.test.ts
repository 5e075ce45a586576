/**
 * Seed 002 routing strategies on a real Temporal dev server (strategiesWorkflow): one member run
 * per turn with scripted models, the router picking the next speaker. Keyword routing to a terminal
 * self-route, structured routes, a state machine with a nudge and a rejection loop, a keyword graph
 * with back-edges, termination by regex and by maxiterations, sequential, route approval rejected
 * then approved, the handoff tool, a Graph sub-graph, pause/resume, continue-as-new carrying the
 * router state, and examples/strategies/dev-team compiled from its files and run.
 */
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { approveUpdate, pauseSignal, rejectUpdate, resumeSignal, statusQuery } from '../../src/shared/definitions';
import { answers, byInput, store } from './builders';
import { failureOf, waitFor } from './harness';
import { childWorkflowIds, historyEvents, signalEventIds, waitForSettledHistory } from '../helpers/history';
import { recordingHarness } from '../strategies/dev-server';
import { fanOutConfig, scriptedTeam as team } from '../strategies/team';

/** Every root run this file starts is replayed on the current code by the last test. */
const dev = recordingHarness('orch-strat');
const { start, started, turns } = dev;

const say = (content: string): ScriptedReply => ({ content });
/** Replies by this agent's own turn number (the `your_turn` of its context block), else `otherwise`. */
const byTurn = (turns: Record<number, string>, otherwise: string): ScriptedModelConfig =>
  byInput(Object.entries(turns).map(([n, text]) => ({ contains: `"your_turn": ${n}\n`, reply: say(text) })), say(otherwise));


describe('keyword', () => {
  test('routes by keyword on its own line, ignores one mid-sentence, corrects ambiguity, ends on a terminal self-route', async () => {
    const b = team('kw-team', {
      Selection: {
        Type: 'keyword', DefaultAgent: 'Writer',
        Routes: [
          { Keyword: 'HANDOFF TO REVIEWER', Agent: 'Reviewer', SourceAgents: ['Writer'] },
          { Keyword: 'REVISE', Agent: 'Writer', SourceAgents: ['Reviewer'] },
          { Keyword: 'DONE', Agent: 'Reviewer', SourceAgents: ['Reviewer'] },
        ],
      },
    }, {
      Writer: byTurn({ 1: 'I will say HANDOFF TO REVIEWER when ready.' }, 'Draft v2.\n**HANDOFF TO REVIEWER**'),
      Reviewer: byTurn({ 1: 'REVISE\nDONE', 2: 'REVISE: tighten the intro' }, 'Looks good.\nDONE'),
    });
    const wf = await start(b, 'write a haiku');
    const res = (await wf.result()) as AgentRunResult;
    expect(res.output).toBe('Looks good.\nDONE');
    // 1 mid-sentence keyword → DefaultAgent Writer again; 3 ambiguous → Reviewer corrected; 4 REVISE → Writer.
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Writer', 'turn-2-Writer', 'turn-3-Reviewer', 'turn-4-Reviewer', 'turn-5-Writer', 'turn-6-Reviewer']);
    const st = await wf.query(statusQuery);
    expect(st.state).toBe('completed');
    expect(st.progress).toMatchObject({ strategy: 'keyword', iteration: 6, stopped: expect.stringMatching(/^terminal: /) });
  });
});

describe('structured', () => {
  test('JSON conditions pick the next agent; a regex termination on the Publisher ends the run', async () => {
    const b = team('st-team', {
      Selection: {
        Type: 'structured', DefaultAgent: 'Drafter',
        StructuredRoutes: [
          { Agent: 'Reviewer', Condition: { Field: 'draft_content', Exists: true }, SourceAgents: ['Drafter'] },
          { Agent: 'Publisher', Condition: { Field: 'review.result', Is: 'yes' }, SourceAgents: ['Reviewer'] },
          { Agent: 'Drafter', Condition: { Field: 'review.result', Is: 'No' }, SourceAgents: ['Reviewer'] },
        ],
      },
      Termination: { Type: 'composite', Strategies: [{ Type: 'regex', Pattern: 'PUBLISHED', AgentNames: ['Publisher'] }, { Type: 'maxiterations', MaxIterations: 15 }] },
    }, {
      Drafter: answers('{"draft_content": "Roses are red"}'),
      Reviewer: byTurn({ 1: 'Verdict:\n```json\n{"review": {"result": "No"}, "reason": "too short"}\n```' }, '{"review": {"result": "Yes"}}'),
      Publisher: answers('PUBLISHED at /posts/1'),
    });
    const wf = await start(b, 'a poem');
    expect(((await wf.result()) as AgentRunResult).output).toBe('PUBLISHED at /posts/1');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Drafter', 'turn-2-Reviewer', 'turn-3-Drafter', 'turn-4-Reviewer', 'turn-5-Publisher']);
    expect((await wf.query(statusQuery)).progress).toMatchObject({ stopped: expect.stringMatching(/^terminated: Termination.Strategies\[0\]: Publisher's message matches/) });
  });

  test('three replies without a matching JSON stop the run as ValidatorStuck', async () => {
    const b = team('st-stuck', {
      Selection: { Type: 'structured', StructuredRoutes: [{ Agent: 'Other', Condition: { Field: 'ok', Exists: true } }] },
    }, { Talker: answers('no json here'), Other: answers('unused') });
    const wf = await start(b, 'x');
    expect(await failureOf(wf)).toMatch(/\[ValidatorStuck\] ValidatorStuck: Talker got stuck after 3 consecutive failed turns/);
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Talker', 'turn-2-Talker', 'turn-3-Talker']);
  });
});

describe('statemachine', () => {
  test('a nudge when no signal is emitted, a rejection loop back to Implementation, regex termination on APPROVED', async () => {
    const b = team('sm-team', {
      Selection: {
        Type: 'statemachine',
        StateMachine: {
          Initial: 'Planning',
          States: {
            Planning: { Agent: 'Planner', Transitions: [{ To: 'Implementation', Signal: 'HANDOFF TO DEVELOPER' }] },
            Implementation: { Agent: 'Developer', Transitions: [{ To: 'Testing', Signal: 'HANDOFF TO TESTER' }] },
            Testing: { Agent: 'Tester', Transitions: [{ To: 'Review', Signal: 'HANDOFF TO REVIEWER' }, { To: 'Implementation', Signal: 'BUGS FOUND' }] },
            Review: { Agent: 'Reviewer', Transitions: [{ To: 'Done', Signal: 'APPROVED' }, { To: 'Implementation', Signal: 'REVISION REQUIRED' }] },
            Done: { Agent: 'Reviewer', Terminal: true },
          },
        },
      },
      Termination: { Type: 'regex', Pattern: '\\bAPPROVED\\b', AgentNames: ['Reviewer'], MaxIterations: 20 },
    }, {
      Planner: answers('Plan: one file.\nHANDOFF TO DEVELOPER'),
      Developer: byInput([{ contains: 'No signal detected', reply: say('Code written.\nHANDOFF TO TESTER') }], say('I wrote some code.')),
      Tester: answers('All green.\nHANDOFF TO REVIEWER'),
      Reviewer: byTurn({ 1: 'Naming is off.\nREVISION REQUIRED' }, 'Ship it.\nAPPROVED'),
    });
    const wf = await start(b, 'build it');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Ship it.\nAPPROVED');
    expect(await turns(wf.workflowId)).toEqual([
      'turn-1-Planner', 'turn-2-Developer', 'turn-3-Developer', 'turn-4-Tester', 'turn-5-Reviewer', 'turn-6-Developer', 'turn-7-Tester', 'turn-8-Reviewer',
    ]);
    const st = await wf.query(statusQuery);
    expect(st.progress).toMatchObject({ iteration: 8, position: 'Review', stopped: expect.stringMatching(/^terminated: Termination: Reviewer's message matches/) });
    expect((st.progress as { routes: { reason: string }[] }).routes.map((r) => r.reason)).toContain('signal "REVISION REQUIRED" from Review (Reviewer)');
  });

  test('parallel fan-out: branches on one snapshot, union merge in the history, the join state speaks', async () => {
    const b = team('sm-fan', fanOutConfig(), {
      Planner: answers('Split it.\nIMPLEMENT'),
      BackendDev: answers('API ready', 300),
      FrontendDev: byInput([{ contains: 'API ready', reply: say('saw the backend') }], say('UI ready')),
      Integrator: byInput([{ contains: '[Branch BackendWork: BackendDev]\nAPI ready', reply: say('integrated API and UI') }], say('nothing to integrate')),
    });
    const wf = await start(b, 'feature');
    expect(((await wf.result()) as AgentRunResult).output).toBe('integrated API and UI');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Planner', 'turn-2-branch-0-BackendWork', 'turn-2-branch-1-FrontendWork', 'turn-4-Integrator']);
  });
});

describe('keyword graph', () => {
  test('strict matching on the current node only, back-edges restart at their target, a Terminal node ends the session', async () => {
    const b = team('graph-team', {
      Selection: {
        Type: 'graph',
        Graph: {
          EntryNode: 'planner',
          Nodes: [
            { Id: 'planner', Agent: 'Planner' }, { Id: 'developer', Agent: 'Developer' }, { Id: 'tester', Agent: 'Tester' },
            { Id: 'reviewer', Agent: 'Reviewer' }, { Id: 'approved', Agent: 'Reviewer', Terminal: true },
          ],
          Edges: [
            { From: 'planner', To: 'developer', Keyword: 'HANDOFF TO DEVELOPER' },
            { From: 'developer', To: 'tester', Keyword: 'HANDOFF TO TESTER' },
            { From: 'tester', To: 'reviewer', Keyword: 'HANDOFF TO REVIEWER' },
            { From: 'tester', To: 'developer', Keyword: 'BUGS FOUND' },
            { From: 'reviewer', To: 'approved', Keyword: 'APPROVED' },
            { From: 'reviewer', To: 'developer', Keyword: 'REVISION REQUIRED' },
            { From: 'reviewer', To: 'planner', Keyword: 'REPLAN REQUIRED' },
          ],
        },
      },
    }, {
      // Turn 1: a keyword of another node (ignored); turn 2: "HANDOFF TO DEVELOPER: now" is not strict (ignored).
      Planner: byTurn({ 1: 'APPROVED', 2: 'HANDOFF TO DEVELOPER: now' }, 'Plan.\nHANDOFF TO DEVELOPER'),
      Developer: answers('Code.\nHANDOFF TO TESTER'),
      Tester: byTurn({ 1: 'BUGS FOUND' }, 'HANDOFF TO REVIEWER'),
      Reviewer: byTurn({ 1: 'Scope is wrong.\nREPLAN REQUIRED', 2: 'APPROVED' }, 'Signed off.'),
    });
    const wf = await start(b, 'feature');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Signed off.');
    expect(await turns(wf.workflowId)).toEqual([
      'turn-1-Planner', 'turn-2-Planner', 'turn-3-Planner', 'turn-4-Developer', 'turn-5-Tester', 'turn-6-Developer', 'turn-7-Tester',
      'turn-8-Reviewer', 'turn-9-Planner', 'turn-10-Developer', 'turn-11-Tester', 'turn-12-Reviewer', 'turn-13-Reviewer',
    ]);
    const routes = ((await wf.query(statusQuery)).progress as { routes: { position?: string; keyword?: string; reason: string }[] }).routes;
    expect(routes.find((r) => r.keyword === 'REPLAN REQUIRED')).toMatchObject({ position: 'planner' });
    expect(routes[routes.length - 1]).toMatchObject({ position: 'approved', keyword: 'APPROVED' });
  });
});

describe('termination and selection order', () => {
  test('roundrobin stops at maxiterations', async () => {
    const b = team('rr-max', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 5 } }, {
      A: answers('a'), B: answers('b'), C: answers('c'),
    });
    const wf = await start(b, 'go');
    expect(((await wf.result()) as AgentRunResult).output).toBe('b');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-A', 'turn-2-B', 'turn-3-C', 'turn-4-A', 'turn-5-B']);
  });

  test('regex termination only counts the named agents', async () => {
    const b = team('rr-regex', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'regex', Pattern: '\\bFINISHED\\b', AgentNames: ['C'], MaxIterations: 30 } }, {
      A: answers('a'), B: answers('FINISHED (not mine to say)'), C: byTurn({ 1: 'not yet' }, 'FINISHED'),
    });
    const wf = await start(b, 'go');
    expect(((await wf.result()) as AgentRunResult).output).toBe('FINISHED');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-A', 'turn-2-B', 'turn-3-C', 'turn-4-A', 'turn-5-B', 'turn-6-C']);
  });

  test('sequential: each agent once, in order, and each sees the transcript so far', async () => {
    const b = team('seq', { Selection: { Type: 'sequential' } }, {
      First: answers('alpha'),
      Second: byInput([{ contains: '[First]\nalpha', reply: say('beta after alpha') }], say('beta blind')),
    });
    const wf = await start(b, 'go');
    expect(((await wf.result()) as AgentRunResult).output).toBe('beta after alpha');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-First', 'turn-2-Second']);
  });
});

describe('route approval', () => {
  test('RequireHumanApproval waits in status; rejected re-invokes the source with the reason, approved fires the route', async () => {
    const b = team('kw-approval', {
      Selection: {
        Type: 'keyword',
        Routes: [
          { Keyword: 'SHIP', Agent: 'Releaser', SourceAgents: ['Builder'], RequireHumanApproval: true },
          { Keyword: 'RELEASED', Agent: 'Releaser', SourceAgents: ['Releaser'] },
        ],
      },
    }, {
      Builder: byInput([{ contains: 'not before the changelog', reply: say('Changelog added.\nSHIP') }], say('Built.\nSHIP')),
      Releaser: answers('v1.0\nRELEASED'),
    });
    const wf = await start(b, 'release');
    const pending = async (id: string) => waitFor(async () => {
      const st = await wf.query(statusQuery);
      return st.state === 'waiting_for_approval' && st.pending_approvals[0]?.call_id === id ? st : undefined;
    }, `route approval ${id}`);
    const st1 = await pending('route-1');
    expect(st1.pending_approvals[0]).toMatchObject({ tool: 'route', arguments: { keyword: 'SHIP', from: 'Builder', to: 'Releaser' } });
    await expect(wf.executeUpdate(approveUpdate, { args: [{ call_id: 'route-9' }] })).rejects.toMatchObject({ cause: { message: expect.stringMatching(/unknown call id 'route-9'; the route waiting for approval is route-1/) } });
    await wf.executeUpdate(rejectUpdate, { args: [{ call_id: 'route-1', reason: 'not before the changelog' }] });
    await pending('route-2');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Builder', 'turn-2-Builder']);
    expect(await wf.executeUpdate(approveUpdate, { args: [{ call_id: 'route-2' }] })).toBe('route route-2 approved');
    expect(((await wf.result()) as AgentRunResult).output).toBe('v1.0\nRELEASED');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-Builder', 'turn-2-Builder', 'turn-3-Releaser']);
  });
});

describe('continue-as-new', () => {
  test('a long roundrobin continues as new with its router state and transcript, every turn once', async () => {
    const b = team('rr-long', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 24 } }, {
      A: answers('a'), B: answers('b'), C: byInput([{ contains: '[B]\nb', reply: say('c saw b') }], say('c blind')),
    });
    const wf = await start(b, 'go', { options: { scale: { loop_history_events: 60 } } });
    expect(((await wf.result()) as AgentRunResult).output).toBe('c saw b');
    const d = await wf.describe();
    expect(d.runId).not.toBe(wf.firstExecutionRunId);
    const all = await turns(wf.workflowId);
    expect(all).toHaveLength(24);
    expect(all.slice(-3)).toEqual(['turn-22-A', 'turn-23-B', 'turn-24-C']);
    expect((await wf.query(statusQuery)).progress).toMatchObject({ iteration: 24 });
  });
});

describe('handoff tool and sub-graphs', () => {
  test('handoff(route_keyword) routes without scanning the text', async () => {
    const b = team('kw-handoff', {
      Selection: { Type: 'keyword', Routes: [{ Keyword: 'TO B', Agent: 'B', SourceAgents: ['A'] }, { Keyword: 'END', Agent: 'B', SourceAgents: ['B'] }] },
    }, {
      A: { turns: [{ tool_calls: [{ name: 'handoff', arguments: { route_keyword: 'to b' } }] }] },
      B: answers('finished\nEND'),
    });
    const wf = await start(b, 'go');
    expect(((await wf.result()) as AgentRunResult).output).toBe('finished\nEND');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-A', 'turn-2-B']);
  });

  test('a Graph sub-graph runs as one node: its terminal output routes the parent edge', async () => {
    const b = team('graph-sub', {
      Selection: {
        Type: 'graph',
        Graph: {
          EntryNode: 'research_phase',
          Nodes: [{ Id: 'research_phase', SubGraphId: 'research_team' }, { Id: 'writer', Agent: 'Writer', Terminal: true }],
          Edges: [{ From: 'research_phase', To: 'writer', Keyword: 'RESEARCH COMPLETE' }],
          SubGraphs: {
            research_team: {
              Graph: {
                EntryNode: 'gatherer',
                Nodes: [{ Id: 'gatherer', Agent: 'DataGatherer' }, { Id: 'analyst', Agent: 'Analyst', Terminal: true }],
                Edges: [{ From: 'gatherer', To: 'analyst', Keyword: 'DATA READY' }],
              },
            },
          },
        },
      },
    }, {
      DataGatherer: answers('3 sources\nDATA READY'),
      Analyst: answers('Findings: all agree.\nRESEARCH COMPLETE'),
      Writer: byInput([{ contains: 'Findings: all agree.', reply: say('Article from the findings') }], say('Article without findings')),
    });
    const wf = await start(b, 'topic');
    expect(((await wf.result()) as AgentRunResult).output).toBe('Article from the findings');
    // Sub-graph members are named after their parent node (sorted first by turns()).
    expect(await turns(wf.workflowId)).toEqual(['research_phase-turn-1-DataGatherer', 'research_phase-turn-2-Analyst', 'turn-3-Writer']);
  });
});

describe('pause and the example registry', () => {
  test('paused: no member starts until resume', async () => {
    const b = team('rr-pause', { Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 2 } }, { A: answers('a'), B: answers('b') });
    const wf = await dev.h.t.client.workflow.signalWithStart('strategiesWorkflow', {
      taskQueue: dev.h.t.taskQueue, workflowId: `orch-strat-pause-${Date.now()}`, args: [{ bundle: await store(b), agent_id: 'rr-pause', input: 'go' }],
      signal: pauseSignal, signalArgs: [],
    });
    started.push(wf);
    // The run has answered the agent load: whatever it would start next is in the history by now.
    const held = await waitForSettledHistory(wf, (ev) => ev.some((e) => e.activityTaskCompletedEventAttributes), 'the run to answer loadAgent');
    expect(childWorkflowIds(held)).toEqual([]);
    expect((await wf.query(statusQuery)).state).toBe('paused');
    await wf.signal(resumeSignal);
    expect(((await wf.result()) as AgentRunResult).output).toBe('b');
    expect(await turns(wf.workflowId)).toEqual(['turn-1-A', 'turn-2-B']);
    const ev = await historyEvents(wf);
    const firstChild = ev.findIndex((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
    expect(Number(ev[firstChild].eventId)).toBeGreaterThan(signalEventIds(ev, 'resume')[0]);
  });

  test('examples/strategies/dev-team compiles from its files and runs: revision loop, then APPROVED', async () => {
    const { bundle: compiled, diagnostics } = compileBundle(path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'dev-team'), 'dev-team');
    expect(diagnostics).toEqual([]);
    const wf = await start(compiled!, compiled!.agents['dev-team'].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe('All criteria met.\nAPPROVED');
    expect(await turns(wf.workflowId)).toEqual([
      'turn-1-Planner', 'turn-2-Developer', 'turn-3-Tester', 'turn-4-Reviewer', 'turn-5-Developer', 'turn-6-Tester', 'turn-7-Reviewer',
    ]);
  });
});

// Last in the file: every run above (its latest execution) replays deterministically on this code.
describe('replay', () => {
  test('every strategies run of this file replays without nondeterminism', async () => {
    expect(started.length).toBeGreaterThanOrEqual(15);
    const outcomes = await dev.replayStarted();
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    expect(outcomes.map((o) => o.workflowId).sort()).toEqual(started.map((wf) => wf.workflowId).sort());
  });
});
