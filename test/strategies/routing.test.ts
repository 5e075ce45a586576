/**
 * Seed 002 routing on a real Temporal dev server, for what the unit tests of src/strategies alone
 * proved before: every parallel fan-out merge (union, consensus, vote, ranked, semantic_diff, and
 * ConflictResolution when one reaches no decision), graph Parallel nodes, the state machine's MaxRevisits escalation,
 * SourceAgents refusing a keyword of another role, and the seed's structured and parallel examples
 * as pasted into examples/strategies/seed-routing. Members are scripted; the join agent echoes
 * its input (`{{message}}`), so each test reads exactly what the merge put into the history.
 */
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import type { ScriptedModelConfig, ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { statusQuery } from '../../src/shared/definitions';
import { answers, byInput } from '../orchestration/builders';
import { recordingHarness } from './dev-server';
import { fanOutConfig, reviewLoopConfig, scriptedTeam } from './team';

const dev = recordingHarness('strat-routing');

const say = (content: string): ScriptedReply => ({ content });
const echo: ScriptedModelConfig = { turns: [say('{{message}}')] };
const routesOf = async (wfId: string) => ((await dev.h.t.client.workflow.getHandle(wfId).query(statusQuery)).progress as { routes: { reason: string; keyword?: string }[] }).routes;

/** Run a two- or three-branch fan-out merged by `merge`; returns what the join agent (Integrator) was given. */
async function fanOut(root: string, merge: Record<string, unknown>, branches: Record<string, string>, extra: Record<string, ScriptedModelConfig> = {}) {
  const targets = Object.fromEntries(Object.keys(branches).map((a) => [`${a}Work`, a]));
  const b = scriptedTeam(root, fanOutConfig(merge, 2 + Object.keys(branches).length, targets), {
    Planner: answers('Split it.\nIMPLEMENT'),
    ...Object.fromEntries(Object.entries(branches).map(([a, text]) => [a, answers(text)])),
    Integrator: echo,
    ...extra,
  });
  const wf = await dev.start(b, 'review the release');
  const joined = String(((await wf.result()) as AgentRunResult).output);
  return { wf, joined, turns: await dev.turns(wf.workflowId) };
}

describe('parallel fan-out merges', () => {
  test('union: every branch output, labelled, in declaration order', async () => {
    const { joined } = await fanOut('merge-union', { Strategy: 'union' }, { Backend: 'API ready', Frontend: 'UI ready' });
    expect(joined).toContain('[Merged output of BackendWork, FrontendWork (union)]\n[Branch BackendWork: Backend]\nAPI ready\n\n[Branch FrontendWork: Frontend]\nUI ready');
  });

  test('consensus: branches agreeing on their final statement pass one output through', async () => {
    const { joined, turns } = await fanOut('merge-consensus', { Strategy: 'consensus' }, { Backend: 'Checked the API.\nVerdict: ship', Frontend: 'Checked the UI.\n**Verdict: SHIP**' });
    expect(joined).toContain('[Merged output of BackendWork, FrontendWork (consensus)]\nChecked the API.\nVerdict: ship\n\n# Context');
    expect(joined).not.toContain('Checked the UI.');
    expect(turns).toEqual(['turn-1-Planner', 'turn-2-branch-0-BackendWork', 'turn-2-branch-1-FrontendWork', 'turn-4-Integrator']);
  });

  test('consensus on disagreement falls back through ConflictResolution (vote ties) to union, and says so', async () => {
    const { joined } = await fanOut('merge-fallback', { Strategy: 'consensus', ConflictResolution: ['vote'] }, { Backend: 'Verdict: ship', Frontend: 'Verdict: hold' });
    expect(joined).toContain('[Merged output of BackendWork, FrontendWork (union; consensus, vote reached no decision)]\n[Branch BackendWork: Backend]\nVerdict: ship\n\n[Branch FrontendWork: Frontend]\nVerdict: hold');
  });

  test('vote: the output most branches agree on wins', async () => {
    const { joined } = await fanOut('merge-vote', { Strategy: 'vote' }, { Backend: 'Backend says:\nAnswer: 42', Frontend: 'Answer: 41', Migration: 'Migration says:\nanswer: 42' });
    expect(joined).toContain('[Merged output of BackendWork, FrontendWork, MigrationWork (vote)]\nBackend says:\nAnswer: 42\n\n# Context');
  });

  test('ranked: Merge.Agent gets every branch output and its pick is what the join state sees', async () => {
    const ranker = byInput([{ contains: 'Score the branch outputs below and reply with the best result, selected or synthesised, as plain text.\n\n[Branch BackendWork: Backend]\nplan A: cache\n\n[Branch FrontendWork: Frontend]\nplan B: index', reply: say('Best: plan B (index)') }], say('no branch outputs seen'));
    const { joined, turns } = await fanOut('merge-ranked', { Strategy: 'ranked', Agent: 'Ranker' }, { Backend: 'plan A: cache', Frontend: 'plan B: index' }, { Ranker: ranker });
    expect(joined).toContain('[Merged output of BackendWork, FrontendWork (ranked by Ranker)]\nBest: plan B (index)\n\n# Context');
    expect(turns).toContain('turn-3-merge-Ranker');
  });

  test('semantic_diff: the resolver reconciles; an empty reply falls back to ConflictResolution', async () => {
    const resolver = byInput([{ contains: 'Identify where the branch outputs below agree, resolve their conflicts', reply: say('Both keep the API; UI waits for v2.') }], say('no branch outputs seen'));
    const ok = await fanOut('merge-semdiff', { Strategy: 'semantic_diff', Agent: 'Resolver' }, { Backend: 'keep the API', Frontend: 'keep the API, UI in v2' }, { Resolver: resolver });
    expect(ok.joined).toContain('[Merged output of BackendWork, FrontendWork (semantic_diff by Resolver)]\nBoth keep the API; UI waits for v2.\n\n# Context');
    const empty = await fanOut('merge-semdiff-empty', { Strategy: 'semantic_diff', Agent: 'Resolver', ConflictResolution: ['consensus'] }, { Backend: 'Result: green', Frontend: 'Result: green' }, { Resolver: answers('   ') });
    expect(empty.joined).toContain('[Merged output of BackendWork, FrontendWork (consensus; semantic_diff by Resolver gave no output)]\nResult: green\n\n# Context');
  });
});

describe('graph Parallel nodes', () => {
  test('Parallel nodes sharing the trigger run together on one snapshot; their union reaches the common join node', async () => {
    const b = scriptedTeam('graph-parallel', {
      Selection: {
        Type: 'graph',
        Graph: {
          EntryNode: 'coord',
          Nodes: [{ Id: 'coord', Agent: 'Coordinator' }, { Id: 'a', Agent: 'AnalyzerA', Parallel: true }, { Id: 'b', Agent: 'AnalyzerB', Parallel: true }, { Id: 'synth', Agent: 'Synthesizer', Terminal: true }],
          Edges: [
            { From: 'coord', To: 'a', Keyword: 'ANALYZE' }, { From: 'coord', To: 'b', Keyword: 'ANALYZE' },
            { From: 'a', To: 'synth' }, { From: 'b', To: 'synth' },
          ],
        },
      },
    }, {
      Coordinator: answers('Two views, please.\nANALYZE'),
      AnalyzerA: answers('Cost: low'),
      AnalyzerB: byInput([{ contains: 'Cost: low', reply: say('saw the other branch') }], say('Risk: medium')),
      Synthesizer: echo,
    });
    const wf = await dev.start(b, 'assess the vendor');
    const joined = String(((await wf.result()) as AgentRunResult).output);
    expect(joined).toContain('[Merged output of a, b (union)]\n[Branch a: AnalyzerA]\nCost: low\n\n[Branch b: AnalyzerB]\nRisk: medium\n\n# Context');
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Coordinator', 'turn-2-branch-0-a', 'turn-2-branch-1-b', 'turn-4-Synthesizer']);
  });
});

describe('statemachine MaxRevisits', () => {
  test('past MaxRevisits the back-edge does not fire again: the reviewer is re-invoked with the escalation message', async () => {
    const b = scriptedTeam('sm-revisits', reviewLoopConfig({ MaxRevisits: 1 }), {
      Developer: answers('Code.\nHANDOFF TO REVIEWER'),
      Reviewer: byInput([{ contains: 'This transition (Review → Implementation) has already fired 1 time(s), its MaxRevisits.', reply: say('The naming objection is not blocking.\nAPPROVED') }], say('Naming is off.\nREVISION REQUIRED')),
    });
    const wf = await dev.start(b, 'build it');
    expect(((await wf.result()) as AgentRunResult).output).toBe('The naming objection is not blocking.\nAPPROVED');
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Reviewer', 'turn-3-Developer', 'turn-4-Reviewer', 'turn-5-Reviewer']);
    expect((await routesOf(wf.workflowId)).map((r) => r.reason)).toContain('MaxRevisits 1 reached on Review → Implementation: escalation');
  });
});

describe('SourceAgents', () => {
  test('a keyword of another role is refused: the author is corrected with the keywords it may emit, the route does not fire', async () => {
    const b = scriptedTeam('kw-roles', {
      Selection: {
        Type: 'keyword', DefaultAgent: 'Developer',
        Routes: [
          { Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', SourceAgents: ['Developer'] },
          { Keyword: 'BUGS FOUND', Agent: 'Developer', SourceAgents: ['Tester'] },
          { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] },
        ],
      },
    }, {
      Developer: byInput([{ contains: '"BUGS FOUND" is not a keyword Developer may emit. Use one of: HANDOFF TO TESTER.', reply: say('Fixed.\nHANDOFF TO TESTER') }], say('I looked for problems.\nBUGS FOUND')),
      Tester: answers('All green.\nDONE'),
    });
    const wf = await dev.start(b, 'fix the bug');
    expect(((await wf.result()) as AgentRunResult).output).toBe('All green.\nDONE');
    expect(await dev.turns(wf.workflowId)).toEqual(['turn-1-Developer', 'turn-2-Developer', 'turn-3-Tester']);
    expect((await routesOf(wf.workflowId)).map((r) => r.reason)).toContain('keyword "BUGS FOUND" belongs to another role: re-invoked');
  });
});

describe('the seed\'s structured and parallel fan-out examples, pasted unchanged (examples/strategies/seed-routing)', () => {
  const dir = path.resolve(__dirname, '..', '..', 'examples', 'strategies', 'seed-routing');
  test.each([
    ['publishing-desk', 'PUBLISHED at /poems/roses', ['turn-1-Drafter', 'turn-2-Reviewer', 'turn-3-Drafter', 'turn-4-Reviewer', 'turn-5-Publisher']],
    ['feature-squad', 'Integrated the API, the form and the migration.\nAPPROVED', ['turn-1-Planner', 'turn-2-branch-0-BackendWork', 'turn-2-branch-1-FrontendWork', 'turn-2-branch-2-MigrationWork', 'turn-5-Integrator']],
  ])('%s compiles without a finding and runs offline to its answer', async (root, output, turns) => {
    const { bundle: compiled, diagnostics } = compileBundle(dir, root);
    expect(diagnostics).toEqual([]);
    const wf = await dev.start(compiled!, compiled!.agents[root].interface.input.examples![0]);
    expect(((await wf.result()) as AgentRunResult).output).toBe(output);
    expect(await dev.turns(wf.workflowId)).toEqual(turns);
  });
});

// Last in the file: every run above (its latest execution) replays deterministically on this code.
test('every run of this file replays without nondeterminism', async () => {
  expect(dev.started.length).toBe(12);
  const outcomes = await dev.replayStarted();
  expect(outcomes.filter((o) => o.error)).toEqual([]);
  expect(outcomes).toHaveLength(dev.started.length);
}, 120_000);
