/** statemachine selection (seed 002): the seed's dev-team machine, contracts, nudges, wrong-state
 * signals, MaxRevisits escalation, RecoveryAgent, HandoffContext, parallel fan-out and join,
 * terminal states; property: the machine never reaches an undeclared state. */
import fc from 'fast-check';
import { OBJECTIONS_MAX_CHARS, stateMachineRouter, StateMachineState } from '../../src/strategies/statemachine';
import { reviewArtifactPathsOf } from '../../src/strategies/evidence';
import { decide } from '../../src/strategies/router';
import type { ContractConfig, FanOutDecision, SpeakDecision, StateMachineConfig, StrategyConfig, Turn } from '../../src/strategies/types';
import { CONTRACTS_YAML, DEV_TEAM, HANDOFF_CONTEXT_STATE_YAML, load, PARALLEL_AGENTS, PARALLEL_YAML, STATEMACHINE_YAML } from './seed-examples';
import { BRIEF, turn, walk, who, withEvidence } from './turns';

/** The seed's machine names three contracts it does not define; these definitions make it runnable. */
const CONTRACTS: ContractConfig[] = [
  { Name: 'BriefExists', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }] },
  { Name: 'ImplementationComplete', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }, { CommandSucceeded: { PatternField: 'verify_command' } }] },
  { Name: 'TestsValid', Requires: [{ CommandSucceeded: { PatternField: 'verify_command' } }] },
];
const sm = (): StateMachineConfig => (load(STATEMACHINE_YAML) as StrategyConfig).Selection.StateMachine as StateMachineConfig;
const done = { files: { 'brief.json': BRIEF }, writes: ['main.go', 'main_test.go'], shell: [{ command: 'go test ./...', exitCode: 0 }] };
const pos = (d: unknown): string | undefined => (d as SpeakDecision).position;

describe('statemachine: the seed dev-team machine', () => {
  test('starts in Initial and follows signals through every state to the terminal Done', () => {
    const { decisions } = walk(stateMachineRouter(sm(), CONTRACTS), [
      withEvidence('Planner', 'HANDOFF TO DEVELOPER', done),
      withEvidence('Developer', 'HANDOFF TO TESTER', done),
      withEvidence('Tester', 'BUGS FOUND: flag ignored', {}),
      withEvidence('Developer', 'HANDOFF TO TESTER', done),
      withEvidence('Tester', 'HANDOFF TO REVIEWER', done),
      withEvidence('Reviewer', 'REVISION REQUIRED', {}),
      withEvidence('Developer', 'HANDOFF TO TESTER', done),
      withEvidence('Tester', 'HANDOFF TO REVIEWER', done),
      withEvidence('Reviewer', 'APPROVED', {}),
      withEvidence('Reviewer', 'Final summary.', {}),
    ]);
    expect(decisions.map(pos)).toEqual(['Planning', 'Implementation', 'Testing', 'Implementation', 'Testing', 'Review', 'Implementation', 'Testing', 'Review', 'Done', 'Done']);
    expect(decisions.map(who).slice(-2)).toEqual(['Reviewer', 'Reviewer']);
    expect(decisions[10]).toMatchObject({ reason: expect.stringMatching(/terminal state Done: runs until termination/) });
  });

  test('a terminal state re-invokes its agent until the Termination strategy fires', () => {
    const cfg: StrategyConfig = { Selection: { Type: 'statemachine', StateMachine: sm() }, Contracts: CONTRACTS, Termination: { Type: 'regex', Pattern: 'SHIPPED', AgentNames: ['Reviewer'] } };
    const flow: Turn[] = [
      withEvidence('Planner', 'HANDOFF TO DEVELOPER', done), withEvidence('Developer', 'HANDOFF TO TESTER', done),
      withEvidence('Tester', 'HANDOFF TO REVIEWER', done), turn('Reviewer', 'APPROVED'), turn('Reviewer', 'wrapping up'),
    ];
    expect(decide(cfg, DEV_TEAM, flow).decision).toMatchObject({ kind: 'speak', agent: 'Reviewer', position: 'Done' });
    expect(decide(cfg, DEV_TEAM, [...flow, turn('Reviewer', 'SHIPPED')]).decision).toMatchObject({ kind: 'stop', outcome: 'terminated' });
  });

  test('no signal: the state\'s agent is re-invoked with a nudge listing the available signals', () => {
    const r = stateMachineRouter(sm(), CONTRACTS);
    const s = r.next(r.start().state, withEvidence('Planner', 'HANDOFF TO DEVELOPER', done)).state;
    const s2 = r.next(s, withEvidence('Developer', 'HANDOFF TO TESTER', done)).state;
    const d = r.next(s2, turn('Tester', 'Ran the tests, thinking.')).decision as SpeakDecision;
    expect(d).toMatchObject({ agent: 'Tester', position: 'Testing' });
    expect(d.message).toBe('No signal detected. When you are done, emit one of these on its own line: HANDOFF TO REVIEWER, BUGS FOUND.');
  });

  test('a signal of another state is ignored (ghost signals are impossible)', () => {
    const r = stateMachineRouter(sm(), CONTRACTS);
    const d = r.next(r.start().state, turn('Planner', 'APPROVED')).decision as SpeakDecision;
    expect(d).toMatchObject({ agent: 'Planner', position: 'Planning' });
    expect(d.message).toMatch(/No signal detected.*HANDOFF TO DEVELOPER/);
  });

  test('a failing contract blocks the transition with a targeted correction; 3 consecutive failures are stuck', () => {
    const r = stateMachineRouter(sm(), CONTRACTS);
    const { decisions } = walk(r, [turn('Planner', 'HANDOFF TO DEVELOPER'), turn('Planner', 'HANDOFF TO DEVELOPER'), turn('Planner', 'HANDOFF TO DEVELOPER')]);
    expect((decisions[1] as SpeakDecision).message).toBe('Transition to Implementation blocked: contract BriefExists: FilesWritten: brief.json does not exist.');
    expect(decisions.map(who)).toEqual(['Planner', 'Planner', 'Planner', 'stop:stuck']);
  });

  test('handoff(route_keyword) is a signal too; ambiguous signals are corrected', () => {
    const r = stateMachineRouter(sm(), CONTRACTS);
    expect(pos(r.next(r.start().state, withEvidence('Planner', 'thinking', done, { handoff: 'handoff to developer' })).decision)).toBe('Implementation');
    const testing: StateMachineState = { ...r.start().state, current: 'Testing' };
    expect((r.next(testing, turn('Tester', 'HANDOFF TO REVIEWER\nBUGS FOUND')).decision as SpeakDecision).message).toMatch(/several signals/);
  });
});

describe('statemachine: transition options', () => {
  const machine = (t: Record<string, unknown>): StateMachineConfig => ({
    Initial: 'Review',
    States: {
      Review: { Agent: 'Reviewer', Transitions: [{ To: 'Done', Signal: 'APPROVED' }, { To: 'Fix', Signal: 'REVISION REQUIRED', ...t }] },
      Fix: { Agent: 'Developer', Transitions: [{ To: 'Review' }] },
      Done: { Agent: 'Reviewer', Terminal: true },
    },
  });

  test('an automatic transition (no Signal) fires after any turn', () => {
    const r = stateMachineRouter(machine({}));
    const s = r.next(r.start().state, turn('Reviewer', 'REVISION REQUIRED')).state;
    expect(pos(r.next(s, turn('Developer', 'fixed it')).decision)).toBe('Review');
  });

  test('MaxRevisits: past the cap the reviewer is re-invoked with the objections artifact instead of looping', () => {
    const r = stateMachineRouter(machine({ MaxRevisits: 2, ReviewArtifactPath: 'review.md' }));
    const { decisions } = walk(r, [
      turn('Reviewer', 'REVISION REQUIRED'), turn('Developer', 'v2'),
      turn('Reviewer', 'REVISION REQUIRED'), turn('Developer', 'v3'),
      turn('Reviewer', 'REVISION REQUIRED'),
    ]);
    expect(decisions.map(pos)).toEqual(['Review', 'Fix', 'Review', 'Fix', 'Review', 'Review']);
    expect(decisions[5]).toMatchObject({ agent: 'Reviewer', reviewArtifactPath: 'review.md', message: expect.stringMatching(/already fired 2 time\(s\).*review\.md/) });
    const generic = walk(stateMachineRouter(machine({ MaxRevisits: 1 })), [turn('Reviewer', 'REVISION REQUIRED'), turn('Developer', 'v2'), turn('Reviewer', 'REVISION REQUIRED')]);
    expect((generic.last.decision as SpeakDecision).message).toMatch(/in the history/);
  });

  test('MaxRevisits escalation quotes ReviewArtifactPath as read after the turn (capped), or says why it cannot', () => {
    const r = stateMachineRouter(machine({ MaxRevisits: 1, ReviewArtifactPath: 'review.md' }));
    const last = (t: Turn) => (walk(r, [turn('Reviewer', 'REVISION REQUIRED'), turn('Developer', 'v2'), t]).last.decision as SpeakDecision).message;
    expect(last(withEvidence('Reviewer', 'REVISION REQUIRED', { files: { 'review.md': '- naming\n- no tests\n' } })))
      .toBe('This transition (Review → Fix) has already fired 1 time(s), its MaxRevisits. Decide whether each objection is still blocking; do not send the work back again for the same objections.\nThe outstanding objections, from review.md:\n- naming\n- no tests');
    expect(last(withEvidence('Reviewer', 'REVISION REQUIRED', { files: { 'review.md': 'x'.repeat(OBJECTIONS_MAX_CHARS + 5) } }))).toMatch(/x\n\[… 5 more characters in review\.md\]$/);
    expect(last(withEvidence('Reviewer', 'REVISION REQUIRED', { files: { 'review.md': null } }))).toMatch(/belong in review\.md, but it does not exist or is empty; review them in the history/);
    expect(reviewArtifactPathsOf({ Selection: { StateMachine: machine({ MaxRevisits: 1, ReviewArtifactPath: 'review.md' }) } })).toEqual(['review.md']);
    expect(reviewArtifactPathsOf({ Selection: { StateMachine: machine({ ReviewArtifactPath: 'review.md' }) } })).toEqual([]);
  });

  test('RecoveryAgent runs once after repeated contract failures; its own turn is not evaluated', () => {
    const cfg = machine({ Contract: 'Needs', RecoveryAgent: 'Planner' });
    const contracts: ContractConfig[] = [{ Name: 'Needs', Requires: [{ FilesWritten: { Source: 'brief.json', Field: 'files_to_change' } }] }];
    const r = stateMachineRouter(cfg, contracts);
    const { decisions } = walk(r, [
      turn('Reviewer', 'REVISION REQUIRED'), // contract failure 1
      turn('Reviewer', 'REVISION REQUIRED'), // failure 2: recovery
      turn('Planner', 'REVISION REQUIRED — wrote the brief'), // recovery turn: not evaluated
      withEvidence('Reviewer', 'REVISION REQUIRED', done), // passes
    ]);
    expect(decisions.map(who)).toEqual(['Reviewer', 'Reviewer', 'Planner', 'Reviewer', 'Developer']);
    expect(decisions[2]).toMatchObject({ recovery: true, message: expect.stringMatching(/blocked in state Review/) });
    const again = walk(r, [turn('Reviewer', 'REVISION REQUIRED'), turn('Reviewer', 'REVISION REQUIRED'), turn('Planner', 'x'), turn('Reviewer', 'REVISION REQUIRED')]);
    expect(again.last.decision).toMatchObject({ kind: 'stop', outcome: 'stuck' });
  });

  test('SourceAgents on a transition refuse other authors', () => {
    const r = stateMachineRouter(machine({ SourceAgents: ['Planner'] }));
    expect((r.next(r.start().state, turn('Reviewer', 'REVISION REQUIRED')).decision as SpeakDecision).message).toMatch(/may not emit "REVISION REQUIRED"/);
  });

  test('HandoffContext (the seed snippet) travels with the decision for the receiving agent', () => {
    const states = load(HANDOFF_CONTEXT_STATE_YAML) as StateMachineConfig['States'];
    const cfg: StateMachineConfig = { Initial: 'Implementation', States: { ...states, Testing: { Agent: 'Tester' } } };
    const contracts = (load(CONTRACTS_YAML) as { Orchestration: StrategyConfig }).Orchestration.Contracts as ContractConfig[];
    const evidence = { files: { '.fuseraft/artifacts/brief.json': BRIEF, 'brief.json': BRIEF }, writes: ['main.go', 'main_test.go'], shell: [{ command: 'go test ./...', exitCode: 0 }] };
    const d = stateMachineRouter(cfg, contracts).next(stateMachineRouter(cfg, contracts).start().state, withEvidence('Developer', 'HANDOFF TO TESTER', evidence)).decision;
    expect(d).toMatchObject({ agent: 'Tester', position: 'Testing', handoffContext: [{ Source: 'session_context' }, { Source: 'changes_recent' }, { Source: 'brief_field:test_targets' }] });
  });

  test('the seed Contracts example: ImplementationComplete needs every brief file written and the verify command passing', () => {
    const orch = (load(CONTRACTS_YAML) as { Orchestration: StrategyConfig }).Orchestration;
    const r = stateMachineRouter(orch.Selection.StateMachine as StateMachineConfig, orch.Contracts);
    const files = { '.fuseraft/artifacts/brief.json': BRIEF, 'brief.json': BRIEF };
    const half = r.next(r.start().state, withEvidence('Developer', 'HANDOFF TO TESTER', { files, writes: ['main.go'], shell: [{ command: 'go test ./...', exitCode: 0 }] })).decision as SpeakDecision;
    expect(half.message).toMatch(/not written yet: main_test.go/);
    const noCmd = r.next(r.start().state, withEvidence('Developer', 'HANDOFF TO TESTER', { files, writes: ['main.go'], changes: ['main_test.go'] })).decision as SpeakDecision;
    expect(noCmd.message).toMatch(/run `go test .\/\.\.\.` until it exits 0/);
    const ok = r.next(r.start().state, withEvidence('Developer', 'HANDOFF TO TESTER', { files, writes: ['main.go'], changes: ['./main_test.go'], shell: [{ command: 'go test ./...', exitCode: 0 }] })).decision;
    expect(ok).toMatchObject({ kind: 'stop', outcome: 'failed' }); // the snippet declares no Testing state; the validator refuses it
  });
});

describe('statemachine: parallel fan-out (the seed Backend/Frontend/Migration example)', () => {
  const par = (): StateMachineConfig => (load(PARALLEL_YAML) as StrategyConfig).Selection.StateMachine as StateMachineConfig;
  test('IMPLEMENT fans out to every Targets state and joins in Integration with the union merge', () => {
    const r = stateMachineRouter(par());
    const step = r.next(r.start().state, turn('Planner', 'Plan ready.\nIMPLEMENT'));
    const d = step.decision as FanOutDecision;
    expect(d.kind).toBe('fanout');
    expect(d.branches).toEqual([{ position: 'BackendWork', agent: 'BackendDev' }, { position: 'FrontendWork', agent: 'FrontendDev' }, { position: 'MigrationWork', agent: 'MigrationDev' }]);
    expect(d.join).toEqual({ position: 'Integration', agent: 'Integrator' });
    expect(d.merge).toEqual({ Strategy: 'union' });
    expect(step.state.current).toBe('Integration');
    const after = r.next(step.state, turn('Integrator', 'APPROVED'));
    expect(after.decision).toMatchObject({ agent: 'Integrator', position: 'Done' });
  });
  test('contracts are not evaluated on a parallel transition', () => {
    const cfg = par();
    cfg.States.Planning.Transitions![0].Contract = 'Never';
    const r = stateMachineRouter(cfg, [{ Name: 'Never', Requires: [{ CommandSucceeded: { PatternField: 'x' } }] }]);
    expect(r.next(r.start().state, turn('Planner', 'IMPLEMENT')).decision.kind).toBe('fanout');
  });
  test('decide() through the whole example with Termination on the terminal state', () => {
    const cfg: StrategyConfig = { ...(load(PARALLEL_YAML) as StrategyConfig), Termination: { Type: 'maxiterations', MaxIterations: 4 } };
    const t = [turn('Planner', 'IMPLEMENT'), { agent: 'merge', text: '[Branch BackendWork: BackendDev] …', kind: 'context' as const }, turn('Integrator', 'APPROVED'), turn('Integrator', 'done')];
    expect(decide(cfg, PARALLEL_AGENTS, t).decision).toMatchObject({ agent: 'Integrator', position: 'Done' });
    expect(decide(cfg, PARALLEL_AGENTS, [...t, turn('Integrator', 'done')]).decision).toMatchObject({ kind: 'stop', outcome: 'terminated' });
  });
});

describe('property: the machine only ever names declared states and their agents', () => {
  test('random turns over the seed machines', () => {
    const machines: [StateMachineConfig, ContractConfig[]][] = [[sm(), CONTRACTS], [(load(PARALLEL_YAML) as StrategyConfig).Selection.StateMachine as StateMachineConfig, []]];
    const words = ['HANDOFF TO DEVELOPER', 'HANDOFF TO TESTER', 'HANDOFF TO REVIEWER', 'BUGS FOUND', 'APPROVED', 'REVISION REQUIRED', 'IMPLEMENT', 'nothing', 'approved: ok', 'say APPROVED'];
    const arbTurn = fc.record({ text: fc.array(fc.constantFrom(...words), { maxLength: 3 }).map((l) => l.join('\n')), evidence: fc.boolean() });
    fc.assert(fc.property(fc.constantFrom(0, 1), fc.array(arbTurn, { maxLength: 30 }), (mi, turns) => {
      const [cfg, contracts] = machines[mi];
      const r = stateMachineRouter(cfg, contracts);
      let step = r.start();
      for (const t of turns) {
        if (step.decision.kind === 'stop') break;
        expect(Object.keys(cfg.States)).toContain(step.state.current);
        const agent = step.decision.kind === 'speak' ? step.decision.agent : (step.decision.kind === 'fanout' ? step.decision.join.agent ?? '' : '');
        expect(Object.values(cfg.States).map((s) => s.Agent)).toContain(agent);
        step = r.next(step.state, t.evidence ? withEvidence(agent, t.text, done) : turn(agent, t.text));
      }
      expect(step.decision.kind === 'stop' ? step.decision.outcome : 'stuck').toBe('stuck');
    }));
  });
});
