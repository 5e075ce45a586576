/** fuseraft's failure classification and FailureHandling, pure: what each refused turn of the keyword,
 * statemachine and graph strategies is classified as, and what each configured action does
 * (correction, audit request, HITL escalation, stop), including RecoveryAgent and the stuck counter. */
import { keywordRouter } from '../../src/strategies/keyword-routing';
import { stateMachineRouter } from '../../src/strategies/statemachine';
import { keywordGraphRouter } from '../../src/strategies/keyword-graph';
import { auditMessage, classifyFailure, handleFailure } from '../../src/strategies/failure';
import { runValidator, evaluateContract } from '../../src/strategies/evidence';
import { validateStrategyConfig } from '../../src/strategies/validate';
import type { ContractConfig, EscalationDecision, FailureHandlingConfig, GraphConfig, SelectionConfig, SpeakDecision, StateMachineConfig } from '../../src/strategies/types';
import { noFailures } from '../../src/strategies/core';
import { BRIEF, turn, walk, who, withEvidence } from './turns';

const ROUTES: SelectionConfig = {
  Type: 'keyword', DefaultAgent: 'Developer',
  Routes: [
    { Keyword: 'HANDOFF TO TESTER', Agent: 'Tester', Validators: ['RequireShellPass'], RequiredCommandPattern: 'go test', SourceAgents: ['Developer'] },
    { Keyword: 'BUGS FOUND', Agent: 'Developer', SourceAgents: ['Tester'] },
    { Keyword: 'DONE', Agent: 'Tester', SourceAgents: ['Tester'] },
  ],
};
const AGENTS = ['Developer', 'Tester'];
const failing = { shell: [{ command: 'go test ./...', exitCode: 1, outputTail: 'FAIL TestFlag' }] };
const passing = { shell: [{ command: 'go test ./...', exitCode: 0 }] };

describe('classification', () => {
  test('validators: absent evidence is MissingEvidence, evidence that contradicts the hand-off is ConflictingEvidence', () => {
    const none = runValidator('RequireShellPass', withEvidence('Developer', 'x', {}), { RequiredCommandPattern: 'go test' });
    const failed = runValidator('RequireShellPass', withEvidence('Developer', 'x', failing), { RequiredCommandPattern: 'go test' });
    expect(none).toMatchObject({ ok: false });
    expect(none).not.toHaveProperty('conflict');
    expect(failed).toMatchObject({ ok: false, conflict: true });
    expect(runValidator('TestReportValid', withEvidence('Tester', 'x', { files: { 'test-report.json': null } }))).not.toHaveProperty('conflict');
    expect(runValidator('TestReportValid', withEvidence('Tester', 'x', { files: { 'test-report.json': '{"tests": [{"name": "a", "status": "pass"}], "summary": {"passed": 2}}' } }))).toMatchObject({ conflict: true });
    expect(runValidator('RequireBrief', withEvidence('Planner', 'x', { files: { 'brief.json': 'not json' } }))).toMatchObject({ conflict: true });
  });

  test('contracts: a matching command that failed conflicts; one never run is missing', () => {
    const c: ContractConfig = { Name: 'Tests', Requires: [{ CommandSucceeded: { PatternField: 'verify_command', Source: 'brief.json' } }] };
    expect(evaluateContract(c, withEvidence('Developer', 'x', { files: { 'brief.json': BRIEF }, ...failing }))).toMatchObject({ ok: false, conflict: true });
    const missing = evaluateContract(c, withEvidence('Developer', 'x', { files: { 'brief.json': BRIEF } }));
    expect(missing).toMatchObject({ ok: false });
    expect(missing).not.toHaveProperty('conflict');
  });

  test('the same agent failing the same way on consecutive turns is NoProgress; another failure or agent is not', () => {
    const once = { failures: 1, failureLog: ['Developer: no routing keyword'] };
    expect(classifyFailure(once, 'Developer', 'MissingSignal', 'no routing keyword')).toBe('NoProgress');
    expect(classifyFailure(once, 'Tester', 'MissingSignal', 'no routing keyword')).toBe('MissingSignal');
    expect(classifyFailure(once, 'Developer', 'AmbiguousSignal', 'ambiguous keywords A, B')).toBe('AmbiguousSignal');
    expect(classifyFailure(noFailures(), 'Developer', 'MissingSignal', 'no routing keyword')).toBe('MissingSignal');
  });

  test('keyword routing tags each re-invocation with its failure type', () => {
    const { decisions } = walk(keywordRouter(ROUTES, AGENTS), [turn('Developer', 'BUGS FOUND'), turn('Developer', 'HANDOFF TO TESTER\nBUGS FOUND')]);
    expect(decisions.slice(1).map((d) => (d as SpeakDecision).failure)).toEqual(['UnauthorizedSignal', 'AmbiguousSignal']);
    expect(walk(keywordRouter(ROUTES, AGENTS), [withEvidence('Developer', 'HANDOFF TO TESTER', failing)]).decisions[1]).toMatchObject({ failure: 'ConflictingEvidence' });
    expect(walk(keywordRouter(ROUTES, AGENTS), [turn('Developer', 'thinking')]).decisions[1]).toMatchObject({ agent: 'Developer', failure: 'MissingSignal' });
  });
});

describe('FailureHandling actions', () => {
  test('no FailureHandling: every failure is corrected and the third consecutive one stops the run as before', () => {
    const { decisions } = walk(keywordRouter(ROUTES, AGENTS), [withEvidence('Developer', 'HANDOFF TO TESTER', failing), withEvidence('Developer', 'HANDOFF TO TESTER', failing), withEvidence('Developer', 'HANDOFF TO TESTER', failing)]);
    expect(decisions.map(who)).toEqual(['Developer', 'Developer', 'Developer', 'stop:stuck']);
    expect((decisions[1] as SpeakDecision).message).toMatch(/^Route "HANDOFF TO TESTER" is blocked: RequireShellPass/);
    expect((decisions[2] as SpeakDecision).failure).toBe('NoProgress');
  });

  test('audit: the agent gets an audit request quoting what the runtime recorded for its turn', () => {
    const d = walk(keywordRouter(ROUTES, AGENTS, { ConflictingEvidence: 'audit' }), [withEvidence('Developer', 'Tests pass.\nHANDOFF TO TESTER', { ...failing, writes: ['main.go'] })]).decisions[1] as SpeakDecision;
    expect(d).toMatchObject({ kind: 'speak', agent: 'Developer', failure: 'ConflictingEvidence' });
    expect(d.message).toBe([
      'Audit request (ConflictingEvidence): Developer\'s turn was refused: RequireShellPass: no shell command containing one of "go test" exited 0 this turn (`go test ./...` exited 1: FAIL TestFlag); run it and fix the failures first.',
      'What the runtime recorded for that turn:',
      '- files written this turn: main.go',
      '- commands run this turn: ',
      '  `go test ./...` exited 1: FAIL TestFlag',
      'Before you signal again, check each claim of your reply against this record, say which one it does not support, fix that, and only then signal.',
    ].join('\n'));
  });

  test('audit applies to the configured type only: MissingEvidence keeps its correction', () => {
    const d = walk(keywordRouter(ROUTES, AGENTS, { ConflictingEvidence: 'audit' }), [withEvidence('Developer', 'HANDOFF TO TESTER', {})]).decisions[1] as SpeakDecision;
    expect(d).toMatchObject({ failure: 'MissingEvidence' });
    expect(d.message).toMatch(/^Route "HANDOFF TO TESTER" is blocked/);
  });

  test('stop: the first failure of that type stops the run, naming the type', () => {
    const { decisions } = walk(keywordRouter(ROUTES, AGENTS, { UnauthorizedSignal: 'stop' }), [turn('Developer', 'BUGS FOUND')]);
    expect(decisions[1]).toEqual({ kind: 'stop', outcome: 'stuck', reason: 'UnauthorizedSignal stops the run (FailureHandling: UnauthorizedSignal: stop): Developer: keyword "BUGS FOUND" belongs to another role' });
  });

  test('escalate: the turn waits for the operator with the state unchanged; approval re-invokes with the counter reset, rejection stops', () => {
    const r = keywordRouter(ROUTES, AGENTS, { NoProgress: 'escalate' });
    const t = withEvidence('Developer', 'HANDOFF TO TESTER', failing);
    const s1 = r.next(r.start().state, t);
    expect(s1.decision).toMatchObject({ failure: 'ConflictingEvidence' });
    const ask = r.next(s1.state, t);
    expect(ask.decision).toMatchObject({ kind: 'escalation', agent: 'Developer', failure: 'NoProgress' } satisfies Partial<EscalationDecision>);
    expect(ask.state).toBe(s1.state);
    const ok = r.next(s1.state, { ...t, escalation: { decision: 'approved', reason: 'use go test ./pkg/...' } });
    expect(ok.state).toMatchObject({ failures: 1 });
    expect((ok.decision as SpeakDecision).message).toMatch(/blocked: RequireShellPass.*\nThe operator reviewed this NoProgress failure .* and lets you continue\. Operator's note: use go test \.\/pkg\/\.\.\.$/s);
    // Approved twice over, the same failure never reaches the stuck limit: the operator decides.
    const again = r.next(ok.state, t);
    expect(again.decision.kind).toBe('escalation');
    const no = r.next(s1.state, { ...t, escalation: { decision: 'rejected', reason: 'wrong approach' } });
    expect(no.decision).toMatchObject({ kind: 'stop', outcome: 'stuck', reason: expect.stringMatching(/^NoProgress escalated to the operator, who stopped the run: wrong approach/) });
  });

  test('passing evidence after a failure still fires the route and resets the counter', () => {
    const { decisions, last } = walk(keywordRouter(ROUTES, AGENTS, { ConflictingEvidence: 'audit' }), [withEvidence('Developer', 'HANDOFF TO TESTER', failing), withEvidence('Developer', 'HANDOFF TO TESTER', passing)]);
    expect(decisions.map(who)).toEqual(['Developer', 'Developer', 'Tester']);
    expect(last.state).toEqual(noFailures());
  });
});

describe('statemachine and graph', () => {
  const sm: StateMachineConfig = {
    Initial: 'Implementation',
    States: {
      Implementation: { Agent: 'Developer', Transitions: [{ To: 'Testing', Signal: 'HANDOFF TO TESTER', Contract: 'Tests', RecoveryAgent: 'Fixer' }] },
      Testing: { Agent: 'Tester', Terminal: true },
    },
  };
  const contracts: ContractConfig[] = [{ Name: 'Tests', Requires: [{ CommandSucceeded: { PatternField: 'verify_command', Source: 'brief.json' } }] }];
  const ev = { files: { 'brief.json': BRIEF }, ...failing };

  test('a contract failure is classified; the RecoveryAgent is the correction and runs once, after two', () => {
    const { decisions } = walk(stateMachineRouter(sm, contracts, { MissingSignal: 'audit' }), [withEvidence('Developer', 'HANDOFF TO TESTER', ev), withEvidence('Developer', 'HANDOFF TO TESTER', ev)]);
    expect(decisions.slice(1).map((d) => [who(d), (d as SpeakDecision).failure])).toEqual([['Developer', 'ConflictingEvidence'], ['Fixer', 'NoProgress']]);
    expect((decisions[2] as SpeakDecision).recovery).toBe(true);
  });

  test('an escalated contract failure waits instead of running the RecoveryAgent; approved, the RecoveryAgent runs', () => {
    const r = stateMachineRouter(sm, contracts, { NoProgress: 'escalate' });
    const t = withEvidence('Developer', 'HANDOFF TO TESTER', ev);
    const s1 = r.next(r.start().state, t);
    expect(r.next(s1.state, t).decision.kind).toBe('escalation');
    const ok = r.next(s1.state, { ...t, escalation: { decision: 'approved' } });
    expect(ok.decision).toMatchObject({ kind: 'speak', agent: 'Fixer', recovery: true });
    expect(ok.state).toMatchObject({ recovering: true, recoveryUsed: ['Implementation#0'] });
  });

  test('MaxRevisits exceeded is NoProgress: its escalation message is the correction, or the operator decides', () => {
    const loop: StateMachineConfig = {
      Initial: 'Review',
      States: {
        Review: { Agent: 'Reviewer', Transitions: [{ To: 'Implementation', Signal: 'REVISION REQUIRED', MaxRevisits: 1 }, { To: 'Done', Signal: 'APPROVED' }] },
        Implementation: { Agent: 'Developer', Transitions: [{ To: 'Review', Signal: 'READY' }] },
        Done: { Agent: 'Reviewer', Terminal: true },
      },
    };
    const flow = [turn('Reviewer', 'REVISION REQUIRED'), turn('Developer', 'READY'), turn('Reviewer', 'REVISION REQUIRED')];
    const plain = walk(stateMachineRouter(loop), flow).decisions[3] as SpeakDecision;
    expect(plain).toMatchObject({ agent: 'Reviewer', failure: 'NoProgress', message: expect.stringMatching(/already fired 1 time\(s\), its MaxRevisits/) });
    expect(walk(stateMachineRouter(loop, [], { NoProgress: 'escalate' }), flow).decisions[3]).toMatchObject({ kind: 'escalation', failure: 'NoProgress' });
  });

  test('graph: a missing keyword is MissingSignal and its handling applies', () => {
    const g: GraphConfig = { EntryNode: 'dev', Nodes: [{ Id: 'dev', Agent: 'Developer' }, { Id: 'done', Agent: 'Tester', Terminal: true }], Edges: [{ From: 'dev', To: 'done', Keyword: 'READY' }] };
    const { decisions } = walk(keywordGraphRouter(g, { MissingSignal: 'stop' }), [turn('Developer', 'thinking')]);
    expect(decisions[1]).toMatchObject({ kind: 'stop', outcome: 'stuck', reason: expect.stringMatching(/^MissingSignal stops the run/) });
  });
});

describe('audit message and validation', () => {
  test('a turn without recorded evidence says so', () => {
    expect(auditMessage('MissingEvidence', 'RequireBrief: brief.json does not exist', turn('Planner', 'done'))).toContain('(this run records no evidence for the turn)');
  });

  test('handleFailure leaves non-speak corrections (a stuck stop) alone', () => {
    const o = handleFailure({ failures: 2, failureLog: ['a: x', 'a: y'] }, turn('a', 't'), 'MissingSignal', 'z', { kind: 'speak', agent: 'a', reason: 'r' }, { handling: { MissingSignal: 'audit' } });
    expect(o.decision).toMatchObject({ kind: 'stop', outcome: 'stuck' });
  });

  const cfg = (fh: unknown, type = 'keyword'): unknown => ({ Selection: { Type: type, Routes: [{ Keyword: 'DONE', Agent: 'Tester' }] }, FailureHandling: fh });
  test('FailureHandling: unknown types and actions are errors naming the valid ones; other selection types warn', () => {
    expect(validateStrategyConfig(cfg({ NoProgress: 'escalate', ConflictingEvidence: 'audit' }), AGENTS)).toEqual([]);
    const bad = validateStrategyConfig(cfg({ NoProgres: 'escalate', MissingSignal: 'retry', AmbiguousSignal: 3 }), AGENTS);
    expect(bad.map((p) => [p.path.join('.'), p.severity, p.rule])).toEqual([
      ['FailureHandling.NoProgres', 'error', 'unknown-name'],
      ['FailureHandling.MissingSignal', 'error', 'unknown-name'],
      ['FailureHandling.AmbiguousSignal', 'error', 'field'],
    ]);
    expect(bad[0].message).toMatch(/did you mean `NoProgress`/);
    expect(bad[1].message).toMatch(/correction, audit, escalate, stop/);
    expect(validateStrategyConfig(cfg('escalate'), AGENTS)[0]).toMatchObject({ severity: 'error', rule: 'field' });
    expect(validateStrategyConfig(cfg({ NoProgress: 'stop' } satisfies FailureHandlingConfig, 'roundrobin'), AGENTS)).toContainEqual(expect.objectContaining({ path: ['FailureHandling'], severity: 'warning' }));
  });
});

describe('the Verifier meta-agent (statemachine)', () => {
  const sm: StateMachineConfig = {
    Initial: 'Implementation',
    States: {
      Implementation: { Agent: 'Developer', Transitions: [{ To: 'Testing', Signal: 'HANDOFF TO TESTER', Contract: 'Tests' }] },
      Testing: { Agent: 'Tester', Terminal: true },
    },
  };
  const contracts: ContractConfig[] = [{ Name: 'Tests', Requires: [{ CommandSucceeded: { PatternField: 'verify_command', Source: 'brief.json' } }] }];
  const conflicting = withEvidence('Developer', 'All tests pass.\nHANDOFF TO TESTER', { files: { 'brief.json': BRIEF }, ...failing });

  test('on ConflictingEvidence the Verifier takes one audit turn, then the state\'s agent is re-invoked', () => {
    const { decisions } = walk(stateMachineRouter(sm, contracts, undefined, 'Auditor'), [conflicting, turn('Auditor', 'The claim "All tests pass" is not supported: go test exited 1.'), turn('Developer', 'fixing')]);
    expect(decisions.map(who)).toEqual(['Developer', 'Auditor', 'Developer', 'Developer']);
    const audit = decisions[1] as SpeakDecision;
    expect(audit).toMatchObject({ position: 'Implementation', recovery: true, failure: 'ConflictingEvidence' });
    expect(audit.message).toMatch(/^Verifier audit \(ConflictingEvidence\) in state Implementation: Developer's hand-off was refused: contract Tests: CommandSucceeded: run `go test \.\/\.\.\.` until it exits 0\.\nWhat the runtime recorded for that turn:\n- files written this turn: \(none\)\n- commands run this turn: \n {2}`go test \.\/\.\.\.` exited 1: FAIL TestFlag\n/);
    expect(decisions[2]).toMatchObject({ reason: 'recovery turn by Auditor done' });
  });

  test('other failure types, or no Verifier, get the plain correction', () => {
    expect(walk(stateMachineRouter(sm, contracts, undefined, 'Auditor'), [turn('Developer', 'thinking')]).decisions[1]).toMatchObject({ agent: 'Developer', failure: 'MissingSignal' });
    expect(walk(stateMachineRouter(sm, contracts), [conflicting]).decisions[1]).toMatchObject({ agent: 'Developer', failure: 'ConflictingEvidence' });
  });

  test('escalate and stop take precedence over the Verifier', () => {
    expect(walk(stateMachineRouter(sm, contracts, { ConflictingEvidence: 'stop' }, 'Auditor'), [conflicting]).decisions[1]).toMatchObject({ kind: 'stop' });
    expect(walk(stateMachineRouter(sm, contracts, { ConflictingEvidence: 'escalate' }, 'Auditor'), [conflicting]).decisions[1]).toMatchObject({ kind: 'escalation' });
  });

  test('Verifier must be a declared agent; outside the state machine it is ignored with a warning', () => {
    const block = (type: string, verifier: string) => ({ Selection: { Type: type, StateMachine: sm, Routes: [{ Keyword: 'DONE', Agent: 'Tester' }] }, Contracts: contracts, Verifier: verifier });
    expect(validateStrategyConfig(block('statemachine', 'Auditor'), ['Developer', 'Tester', 'Auditor']).filter((p) => p.path[0] === 'Verifier')).toEqual([]);
    expect(validateStrategyConfig(block('statemachine', 'Auditr'), ['Developer', 'Tester', 'Auditor'])).toContainEqual(expect.objectContaining({ path: ['Verifier'], rule: 'unknown-agent', message: expect.stringMatching(/did you mean `Auditor`/) }));
    expect(validateStrategyConfig(block('keyword', 'Auditor'), ['Developer', 'Tester', 'Auditor'])).toContainEqual(expect.objectContaining({ path: ['Verifier'], severity: 'warning' }));
  });
});
