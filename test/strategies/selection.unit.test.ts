/** sequential, roundrobin, keyword and structured selection (seed 002), driven by the seed's own
 * YAML examples: every routing rule of "How routing works" and the stuck rule. */
import fc from 'fast-check';
import { roundRobinRouter, sequentialRouter, structuredRouter } from '../../src/strategies/selection';
import { keywordRouter, isTerminalRoute } from '../../src/strategies/keyword-routing';
import { decide } from '../../src/strategies/router';
import { STUCK_LIMIT } from '../../src/strategies/core';
import type { RouteConfig, SpeakDecision, StrategyConfig } from '../../src/strategies/types';
import { APPROVED_ROUTE_YAML, DEV_TEAM, KEYWORD_YAML, load, STRUCTURED_AGENTS, STRUCTURED_TERMINATION_YAML, STRUCTURED_YAML } from './seed-examples';
import { BRIEF, REVIEW, TEST_REPORT, turn, walk, who, withEvidence } from './turns';

const keywordCfg = (): StrategyConfig => load(KEYWORD_YAML);
const kw = () => keywordRouter(keywordCfg().Selection, DEV_TEAM);
const goTest = { writes: ['main.go'], shell: [{ command: 'go test ./...', exitCode: 0 }] };

describe('sequential', () => {
  test('one pass over Agents in declared order, then the session ends', () => {
    const { decisions } = walk(sequentialRouter(DEV_TEAM), DEV_TEAM.map((a) => turn(a, 'done')));
    expect(decisions.map(who)).toEqual([...DEV_TEAM, 'stop:complete']);
  });
  test('no agents: a failed stop, not a crash', () => {
    expect(sequentialRouter([]).start().decision).toMatchObject({ kind: 'stop', outcome: 'failed' });
  });
});

describe('roundrobin', () => {
  test('cycles back to the first agent after the last', () => {
    const { decisions } = walk(roundRobinRouter(['A', 'B', 'C']), [turn('A', ''), turn('B', ''), turn('C', ''), turn('A', '')]);
    expect(decisions.map(who)).toEqual(['A', 'B', 'C', 'A', 'B']);
  });
  test('property: fair (turn counts differ by at most one) and in declared order', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 60 }), (n, k) => {
      const agents = Array.from({ length: n }, (_, i) => `A${i}`);
      const r = roundRobinRouter(agents);
      let step = r.start();
      const counts = new Map<string, number>();
      for (let i = 0; i <= k; i++) {
        const a = (step.decision as SpeakDecision).agent;
        expect(a).toBe(agents[i % n]);
        counts.set(a, (counts.get(a) ?? 0) + 1);
        step = r.next(step.state, turn(a, 'x'));
      }
      const values = agents.map((a) => counts.get(a) ?? 0);
      expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
    }));
  });
});

describe('keyword: the seed dev-team example', () => {
  test('DefaultAgent starts; without DefaultAgent the first agent does', () => {
    expect(who(kw().start().decision)).toBe('Planner');
    const sel = { ...keywordCfg().Selection, DefaultAgent: undefined };
    expect(who(keywordRouter(sel, ['Developer', 'Planner']).start().decision)).toBe('Developer');
  });

  test('the full pipeline with real evidence ends on the terminal APPROVED self-route', () => {
    const { decisions } = walk(kw(), [
      withEvidence('Planner', 'Brief written.\nHANDOFF TO DEVELOPER', { files: { 'brief.json': BRIEF } }),
      withEvidence('Developer', 'Implemented.\nHANDOFF TO TESTER', goTest),
      withEvidence('Tester', 'Two failures.\nBUGS FOUND', {}),
      withEvidence('Developer', 'Fixed.\nHANDOFF TO TESTER', goTest),
      withEvidence('Tester', 'All green.\nHANDOFF TO REVIEWER', { files: { 'test-report.json': TEST_REPORT } }),
      withEvidence('Reviewer', 'Naming.\nREVISION REQUIRED', {}),
      withEvidence('Developer', 'Renamed.\nHANDOFF TO TESTER', goTest),
      withEvidence('Tester', 'HANDOFF TO REVIEWER', { files: { 'test-report.json': TEST_REPORT } }),
      withEvidence('Reviewer', REVIEW, { shell: [{ command: 'go test ./...', exitCode: 0 }] }),
    ]);
    expect(decisions.map(who)).toEqual(['Planner', 'Developer', 'Tester', 'Developer', 'Tester', 'Reviewer', 'Developer', 'Tester', 'Reviewer', 'stop:terminal']);
    expect(decisions[1]).toMatchObject({ keyword: 'HANDOFF TO DEVELOPER' });
  });

  test('REPLAN REQUIRED goes back to the Planner (phase-break route, not terminal)', () => {
    const r = kw();
    expect(who(r.next(r.start().state, turn('Reviewer', 'Scope is wrong.\nREPLAN REQUIRED')).decision)).toBe('Planner');
  });

  test('a validator blocks the route and re-invokes the source agent with the reason', () => {
    const r = kw();
    const d = r.next(r.start().state, turn('Planner', 'HANDOFF TO DEVELOPER')).decision;
    expect(d).toMatchObject({ kind: 'speak', agent: 'Planner' });
    expect((d as SpeakDecision).message).toMatch(/RequireBrief: brief.json does not exist/);
  });

  test('RequiredCommandPattern: the passing command must contain go build or go test; a failing one does not count', () => {
    const r = kw();
    const s = r.start().state;
    expect(who(r.next(s, withEvidence('Developer', 'HANDOFF TO TESTER', { writes: ['a.go'], shell: [{ command: 'make', exitCode: 0 }] })).decision)).toBe('Developer');
    expect(who(r.next(s, withEvidence('Developer', 'HANDOFF TO TESTER', { writes: ['a.go'], shell: [{ command: 'go test ./...', exitCode: 1 }] })).decision)).toBe('Developer');
    expect(who(r.next(s, withEvidence('Developer', 'HANDOFF TO TESTER', { writes: ['a.go'], shell: [{ command: 'go build .', exitCode: 0 }] })).decision)).toBe('Tester');
    expect((r.next(s, withEvidence('Developer', 'HANDOFF TO TESTER', { shell: [{ command: 'go build .', exitCode: 0 }] })).decision as SpeakDecision).message).toMatch(/RequireWriteFile/);
  });

  test('a keyword in mid-sentence does not route: DefaultAgent handles the next turn', () => {
    const r = kw();
    const d = r.next(r.start().state, turn('Tester', 'I expect the reviewer to say APPROVED soon.')).decision;
    expect(d).toMatchObject({ kind: 'speak', agent: 'Planner' });
  });

  test('SourceAgents: a keyword of another role does not fire; the author is corrected with its own keywords', () => {
    const r = kw();
    const d = r.next(r.start().state, turn('Developer', 'BUGS FOUND')).decision as SpeakDecision;
    expect(d.agent).toBe('Developer');
    expect(d.message).toMatch(/"BUGS FOUND" is not a keyword Developer may emit.*HANDOFF TO TESTER/);
  });

  test('several keywords on their own lines: rejected as ambiguous, a correction asks for exactly one', () => {
    const r = kw();
    const d = r.next(r.start().state, turn('Reviewer', 'REVISION REQUIRED\nREPLAN REQUIRED')).decision as SpeakDecision;
    expect(d.agent).toBe('Reviewer');
    expect(d.message).toMatch(/exactly one keyword/);
  });

  test('handoff(route_keyword) routes without scanning the text; an unknown keyword is corrected', () => {
    const r = kw();
    const s = r.start().state;
    expect(who(r.next(s, turn('Tester', 'APPROVED\nREVISION REQUIRED', { handoff: 'bugs found' })).decision)).toBe('Developer');
    expect((r.next(s, turn('Tester', '', { handoff: 'DONE' })).decision as SpeakDecision).message).toMatch(/matches no route/);
  });

  test(`stuck: ${STUCK_LIMIT} consecutive failures of different kinds stop the run; a route that fires resets the count`, () => {
    const { decisions } = walk(kw(), [
      turn('Developer', 'BUGS FOUND'), // foreign keyword
      turn('Developer', 'HANDOFF TO TESTER\nBUGS FOUND'), // ambiguous
      turn('Developer', 'HANDOFF TO TESTER'), // validator failure: no evidence
    ]);
    expect(decisions.map(who)).toEqual(['Planner', 'Developer', 'Developer', 'stop:stuck']);
    expect(decisions[3]).toMatchObject({ reason: expect.stringMatching(/ValidatorStuck: Developer .*3 consecutive.*RequireWriteFile/) });
    const reset = walk(kw(), [turn('Tester', 'no keyword'), turn('Planner', 'still none'), turn('Tester', 'BUGS FOUND'), turn('Developer', 'x'), turn('Planner', 'y')]);
    expect(reset.decisions.map(who)).toEqual(['Planner', 'Planner', 'Planner', 'Developer', 'Planner', 'Planner']);
    expect(walk(kw(), [turn('Tester', 'a'), turn('Planner', 'b'), turn('Planner', 'c')]).last.decision).toMatchObject({ kind: 'stop', outcome: 'stuck' });
  });

  test('RequireHumanApproval: asks first (state unchanged), a rejection re-invokes with "route blocked", an approval fires', () => {
    const cfg = keywordCfg();
    (cfg.Selection.Routes as RouteConfig[])[3].RequireHumanApproval = true; // BUGS FOUND
    const r = keywordRouter(cfg.Selection, DEV_TEAM);
    const s0 = r.start().state;
    const asked = r.next(s0, turn('Tester', 'BUGS FOUND'));
    expect(asked.decision).toMatchObject({ kind: 'approval', source: 'Tester', keyword: 'BUGS FOUND', target: 'Developer' });
    expect(asked.state).toEqual(s0);
    const rejected = r.next(s0, turn('Tester', 'BUGS FOUND', { routeApproval: 'rejected' })).decision as SpeakDecision;
    expect(rejected.agent).toBe('Tester');
    expect(rejected.message).toMatch(/Route blocked/);
    expect(who(r.next(s0, turn('Tester', 'BUGS FOUND', { routeApproval: 'approved' })).decision)).toBe('Developer');
  });

  test('the self-routing convention: Agent among SourceAgents is terminal (the seed APPROVED snippet)', () => {
    const [approved] = load(APPROVED_ROUTE_YAML) as RouteConfig[];
    expect(isTerminalRoute(approved)).toBe(true);
    expect(isTerminalRoute(keywordCfg().Selection.Routes?.[3] as RouteConfig)).toBe(false);
  });
});

describe('structured: the seed Drafter/Reviewer/Publisher example', () => {
  const st = () => structuredRouter((load(STRUCTURED_YAML) as StrategyConfig).Selection, STRUCTURED_AGENTS);
  test('DefaultAgent starts, then routes follow the JSON fields (raw, fenced, embedded; case-insensitive Is)', () => {
    const { decisions } = walk(st(), [
      turn('Drafter', '{"draft_content": "Hello world"}'),
      turn('Reviewer', 'My decision:\n```json\n{"review_result": "no", "reason": "too short"}\n```'),
      turn('Drafter', 'Here: {"draft_content": {"title": "Hello"}} as asked'),
      turn('Reviewer', '{"review_result": "YES", "reason": "fine"}'),
    ]);
    expect(decisions.map(who)).toEqual(['Drafter', 'Reviewer', 'Drafter', 'Reviewer', 'Publisher']);
  });
  test('invalid JSON or no match re-invokes the last agent naming the required fields; 3 in a row are stuck', () => {
    const { decisions } = walk(st(), [turn('Reviewer', 'I like it'), turn('Reviewer', '{"verdict": "ok"}'), turn('Reviewer', '{"review_result": "maybe"}')]);
    expect(decisions.map(who)).toEqual(['Drafter', 'Reviewer', 'Reviewer', 'stop:stuck']);
    expect((decisions[1] as SpeakDecision).message).toBe('Your reply must be a JSON object. Include the field(s): review_result.');
    expect((decisions[2] as SpeakDecision).message).toMatch(/matched no route.*review_result/);
  });
  test('SourceAgents: the Drafter cannot trigger the Reviewer\'s routes', () => {
    const d = st().next(st().start().state, turn('Drafter', '{"review_result": "Yes"}')).decision as SpeakDecision;
    expect(d.agent).toBe('Drafter');
    expect(d.message).toMatch(/draft_content/);
  });
  test('with the seed composite termination: PUBLISHED from the Publisher ends it, and MaxIterations 15 caps it', () => {
    const cfg: StrategyConfig = { ...(load(STRUCTURED_YAML) as StrategyConfig), ...(load(STRUCTURED_TERMINATION_YAML) as StrategyConfig) };
    const flow = [turn('Drafter', '{"draft_content": "x"}'), turn('Reviewer', '{"review_result": "Yes"}')];
    expect(decide(cfg, STRUCTURED_AGENTS, flow).decision).toMatchObject({ kind: 'speak', agent: 'Publisher' });
    expect(decide(cfg, STRUCTURED_AGENTS, [...flow, turn('Publisher', 'PUBLISHED at /blog/x')]).decision).toMatchObject({ kind: 'stop', outcome: 'terminated' });
    expect(decide(cfg, STRUCTURED_AGENTS, [...flow, turn('Drafter', 'PUBLISHED')]).decision).toMatchObject({ kind: 'speak' });
    const loop = Array.from({ length: 15 }, (_, i) => (i % 2 === 0 ? turn('Drafter', '{"draft_content": "x"}') : turn('Reviewer', '{"review_result": "No"}')));
    expect(decide(cfg, STRUCTURED_AGENTS, loop.slice(0, 14)).decision).toMatchObject({ kind: 'speak' });
    expect(decide(cfg, STRUCTURED_AGENTS, loop).decision).toMatchObject({ kind: 'stop', outcome: 'terminated', reason: expect.stringMatching(/MaxIterations 15/) });
  });
});
