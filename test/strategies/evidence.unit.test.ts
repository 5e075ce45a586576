/** Validators and evidence contracts, termination strategies, merges and structured-routing JSON
 * (seed 002), each a pure check: every built-in validator passing and failing on real evidence. */
import { commandMatches, commandSourceOf, evaluateContract, runValidator, withCommandSources, runValidators, validatorsOf } from '../../src/strategies/evidence';
import { checkTermination } from '../../src/strategies/termination';
import { finalStatement, mergeBranches } from '../../src/strategies/merge';
import { evaluateCondition, extractJsonObject, resolveField } from '../../src/strategies/json';
import type { ContractConfig, StrategyConfig, TerminationConfig } from '../../src/strategies/types';
import { COMPOSITE_TERMINATION_YAML, CONTRACTS_YAML, load } from './seed-examples';
import { BRIEF, REVIEW, TEST_REPORT, turn, withEvidence } from './turns';

describe('built-in validators', () => {
  test('RequireBrief: brief.json with non-empty goal, files_to_change and acceptance_criteria', () => {
    expect(runValidator('RequireBrief', withEvidence('Planner', '', { files: { 'brief.json': BRIEF } }))).toEqual({ ok: true });
    expect(runValidator('RequireBrief', turn('Planner', 'I wrote brief.json'))).toMatchObject({ ok: false, reason: expect.stringMatching(/does not exist/) });
    expect(runValidator('RequireBrief', withEvidence('Planner', '', { files: { 'brief.json': '{"goal": "x", "files_to_change": []}' } }))).toMatchObject({ reason: expect.stringMatching(/files_to_change, acceptance_criteria/) });
    expect(runValidator('RequireBrief', withEvidence('Planner', '', { files: { 'brief.json': '{nope' } }))).toMatchObject({ reason: expect.stringMatching(/not valid JSON/) });
  });
  test('RequireWriteFile: a real write_file call this turn (or a ShellFallbackPattern command that passed)', () => {
    expect(runValidator('RequireWriteFile', withEvidence('Dev', '', { writes: ['a.go'] })).ok).toBe(true);
    expect(runValidator('RequireWriteFile', turn('Dev', 'I wrote the file')).ok).toBe(false);
    const patch = withEvidence('Dev', '', { shell: [{ command: 'git apply x.patch', exitCode: 0 }] });
    expect(runValidator('RequireWriteFile', patch, { ShellFallbackPattern: 'git apply|patch -p1' }).ok).toBe(true);
    expect(runValidator('RequireWriteFile', withEvidence('Dev', '', { shell: [{ command: 'git apply x.patch', exitCode: 1 }] }), { ShellFallbackPattern: 'git apply' }).ok).toBe(false);
  });
  test('RequireAllFilesWritten: every files_to_change entry written now or in changes.json', () => {
    const files = { 'brief.json': BRIEF };
    expect(runValidator('RequireAllFilesWritten', withEvidence('Dev', '', { files, writes: ['main.go'], changes: ['./main_test.go'] })).ok).toBe(true);
    expect(runValidator('RequireAllFilesWritten', withEvidence('Dev', '', { files, writes: ['main.go'] }))).toMatchObject({ reason: expect.stringMatching(/not written yet: main_test.go/) });
  });
  test('RequireShellPass with RequiredCommandPattern (pipe-separated substrings)', () => {
    const t = withEvidence('Dev', '', { shell: [{ command: 'make lint', exitCode: 0 }, { command: 'go test ./...', exitCode: 2 }] });
    expect(runValidator('RequireShellPass', t).ok).toBe(true);
    expect(runValidator('RequireShellPass', t, { RequiredCommandPattern: 'go build|go test' }).ok).toBe(false);
    expect(commandMatches('go build ./cmd', 'go build|go test')).toBe(true);
    expect(commandMatches('npm test', 'go build|go test')).toBe(false);
  });
  test('TestReportValid: structural checks of test-report.json', () => {
    const v = (json: unknown) => runValidator('TestReportValid', withEvidence('Tester', '', { files: { 'test-report.json': JSON.stringify(json) } }));
    expect(runValidator('TestReportValid', withEvidence('Tester', '', { files: { 'test-report.json': TEST_REPORT } })).ok).toBe(true);
    expect(v({ tests: [] })).toMatchObject({ reason: expect.stringMatching(/non-empty "tests"/) });
    expect(v({ tests: [{ name: 'a', status: 'flaky' }] })).toMatchObject({ reason: expect.stringMatching(/pass, fail, skip/) });
    expect(v({ tests: [{ status: 'pass' }] })).toMatchObject({ reason: expect.stringMatching(/"name"/) });
    expect(v({ tests: [{ name: 'a', status: 'pass' }], summary: { passed: 2 } })).toMatchObject({ reason: expect.stringMatching(/summary.passed is 2/) });
    expect(runValidator('TestReportValid', turn('Tester', 'all tests pass')).ok).toBe(false);
  });
  test('RequireReviewJudgement: a {"review": [{criterion, verdict, evidence}]} judgement in the reply', () => {
    expect(runValidator('RequireReviewJudgement', turn('Reviewer', REVIEW)).ok).toBe(true);
    expect(runValidator('RequireReviewJudgement', turn('Reviewer', 'APPROVED')).ok).toBe(false);
    expect(runValidator('RequireReviewJudgement', turn('Reviewer', '{"review": [{"criterion": "x", "verdict": "PASS", "evidence": ""}]}')).ok).toBe(false);
  });
  test('AND semantics, Validators over Validator, unknown names fail', () => {
    expect(runValidators(['RequireWriteFile', 'RequireShellPass'], withEvidence('Dev', '', { writes: ['a'] }))).toMatchObject({ reason: expect.stringMatching(/^RequireShellPass/) });
    expect(validatorsOf({ Validator: 'RequireBrief', Validators: ['TestReportValid'] })).toEqual(['TestReportValid']);
    expect(validatorsOf({ Validator: 'RequireBrief' })).toEqual(['RequireBrief']);
    expect(runValidator('Nope', turn('A', ''))).toEqual({ ok: false, reason: 'unknown validator Nope' });
  });
});

describe('evidence contracts', () => {
  const contract = { Name: 'C', Requires: [{ FilesWritten: { Source: 'plan.json', Field: 'work.files' } }, { CommandSucceeded: { PatternField: 'check', Source: 'plan.json' } }] };
  const plan = JSON.stringify({ work: { files: ['x.ts'] }, check: 'npm test' });
  test('FilesWritten with a dot-path Field and CommandSucceeded reading its command from Source', () => {
    expect(evaluateContract(contract, withEvidence('D', '', { files: { 'plan.json': plan }, writes: ['x.ts'], shell: [{ command: 'npm test -- --ci', exitCode: 0 }] })).ok).toBe(true);
    expect(evaluateContract(contract, withEvidence('D', '', { files: { 'plan.json': plan }, writes: ['x.ts'], shell: [{ command: 'npm test', exitCode: 1 }] }))).toMatchObject({ reason: expect.stringMatching(/run `npm test` until it exits 0/) });
    expect(evaluateContract(contract, withEvidence('D', '', { files: { 'plan.json': JSON.stringify({ work: {} }) } }))).toMatchObject({ reason: expect.stringMatching(/no file list at work.files/) });
    expect(evaluateContract({ Name: 'E', Requires: [{}] }, turn('D', '')).ok).toBe(false);
  });
  test('the seed\'s contract pasted unchanged: CommandSucceeded without Source reads the brief its FilesWritten names', () => {
    const seed = load(CONTRACTS_YAML).Orchestration.Contracts[0] as ContractConfig;
    const brief = JSON.stringify({ files_to_change: ['slug.js'], verify_command: 'node slug.test.js' });
    const done = withEvidence('Developer', '', { files: { '.fuseraft/artifacts/brief.json': brief }, writes: ['slug.js'], shell: [{ command: 'node slug.test.js', exitCode: 0 }] });
    expect(commandSourceOf(seed, seed.Requires[1].CommandSucceeded!)).toBe('.fuseraft/artifacts/brief.json');
    const [explicit] = withCommandSources([seed]);
    expect(explicit.Requires[1]).toEqual({ CommandSucceeded: { PatternField: 'verify_command', Source: '.fuseraft/artifacts/brief.json' } });
    expect(evaluateContract(explicit, done)).toEqual({ ok: true });
    // A bundle compiled before Source was made explicit keeps the runtime default, and says so.
    const stuck = evaluateContract(seed, done);
    expect(stuck).toMatchObject({ ok: false, reason: expect.stringContaining('CommandSucceeded: brief.json does not exist (CommandSucceeded names no `Source`: the default brief.json at the workspace root was read') });
  });
  test('commandSourceOf: its own Source first; a sibling that is not a brief is not used; else brief.json', () => {
    const c = (reqs: ContractConfig['Requires']): ContractConfig => ({ Name: 'C', Requires: reqs });
    expect(commandSourceOf(c([{ FilesWritten: { Source: 'a/brief.json', Field: 'f' } }]), { Source: 'plan.json' })).toBe('plan.json');
    expect(commandSourceOf(c([{ FilesWritten: { Source: 'plan.json', Field: 'f' } }]), {})).toBe('brief.json');
    expect(commandSourceOf(c([]), {})).toBe('brief.json');
    const untouched = [c([{ CommandSucceeded: { PatternField: 'x', Source: 'p.json' } }]), c([{ CommandSucceeded: { PatternField: 'x' } }])];
    expect(withCommandSources(untouched)).toEqual(untouched);
    expect(withCommandSources(untouched)[1]).toBe(untouched[1]);
  });
});

describe('termination', () => {
  const comp = (load(COMPOSITE_TERMINATION_YAML) as StrategyConfig).Termination as TerminationConfig;
  test('the seed composite: \\bAPPROVED\\b from the Reviewer only, or 40 turns', () => {
    expect(checkTermination(comp, [turn('Developer', 'x'), turn('Reviewer', 'All good. APPROVED')])).toMatchObject({ stop: true, strategy: 'Termination.Strategies[0]' });
    expect(checkTermination(comp, [turn('Developer', 'APPROVED')]).stop).toBe(false);
    expect(checkTermination(comp, [turn('Reviewer', 'UNAPPROVED')]).stop).toBe(false);
    const turns = Array.from({ length: 40 }, (_, i) => turn(i % 2 ? 'Reviewer' : 'Developer', 'working'));
    expect(checkTermination(comp, turns.slice(0, 39)).stop).toBe(false);
    expect(checkTermination(comp, turns)).toMatchObject({ stop: true, reason: '40 agent turn(s) reached MaxIterations 40' });
  });
  test('only the last agent turn is matched; context entries are not turns', () => {
    const re: TerminationConfig = { Type: 'regex', Pattern: 'DONE' };
    expect(checkTermination(re, [turn('A', 'DONE'), turn('B', 'more')]).stop).toBe(false);
    expect(checkTermination(re, [turn('A', 'DONE'), { agent: 'merge', text: 'x', kind: 'context' }]).stop).toBe(true);
    expect(checkTermination({ Type: 'maxiterations', MaxIterations: 2 }, [turn('A', ''), { agent: 'm', text: '', kind: 'context' }]).stop).toBe(false);
  });
  test('MaxIterations is a hard cap on every type; nested composites; no config never stops', () => {
    expect(checkTermination({ Type: 'regex', Pattern: 'NEVER', MaxIterations: 1 }, [turn('A', 'x')]).stop).toBe(true);
    const nested: TerminationConfig = { Type: 'composite', Strategies: [{ Type: 'composite', Strategies: [{ Type: 'regex', Pattern: '^SHIP$', AgentNames: ['Lead'] }] }] };
    expect(checkTermination(nested, [turn('Lead', 'SHIP')])).toMatchObject({ stop: true, strategy: 'Termination.Strategies[0].Strategies[0]' });
    expect(checkTermination(undefined, [turn('A', 'x')]).stop).toBe(false);
  });
});

describe('merges', () => {
  const out = (texts: string[]) => texts.map((text, i) => ({ position: `S${i}`, agent: `A${i}`, text }));
  test('union concatenates in declaration order with labels', () => {
    expect(mergeBranches(out(['one', 'two']))).toEqual({ kind: 'merged', strategy: 'union', text: '[Branch S0: A0]\none\n\n[Branch S1: A1]\ntwo', note: undefined });
  });
  test('consensus passes through when every final statement agrees, else falls back to union', () => {
    expect(mergeBranches(out(['x\n**Ship it**', 'y\nship  it']), { Strategy: 'consensus' })).toMatchObject({ strategy: 'consensus', text: 'x\n**Ship it**' });
    expect(mergeBranches(out(['ship', 'hold']), { Strategy: 'consensus' })).toMatchObject({ strategy: 'union', note: 'consensus reached no decision' });
  });
  test('vote picks the majority, a tie falls back (through ConflictResolution, then union)', () => {
    expect(mergeBranches(out(['a\nYES', 'b\nNO', 'c\nyes']), { Strategy: 'vote' })).toMatchObject({ strategy: 'vote', text: 'a\nYES' });
    expect(mergeBranches(out(['YES', 'NO']), { Strategy: 'vote', ConflictResolution: ['consensus'] })).toMatchObject({ strategy: 'union', note: 'vote, consensus reached no decision' });
    expect(mergeBranches(out(['YES', 'NO']), { Strategy: 'vote', Agent: 'Judge', ConflictResolution: ['ranked', 'union'] })).toMatchObject({ kind: 'agent', strategy: 'ranked', agent: 'Judge', fallback: { Strategy: 'union' } });
  });
  test('ranked and semantic_diff ask Merge.Agent with every branch output', () => {
    const r = mergeBranches(out(['p', 'q']), { Strategy: 'semantic_diff', Agent: 'Resolver', ConflictResolution: ['vote'] });
    expect(r).toMatchObject({ kind: 'agent', strategy: 'semantic_diff', agent: 'Resolver', fallback: { Strategy: 'vote', Agent: 'Resolver', ConflictResolution: [] } });
    expect(r.kind === 'agent' && r.prompt).toMatch(/reconciled output[\s\S]*\[Branch S1: A1\]\nq/);
    expect(finalStatement('a\n\n  last line  \n')).toBe('last line');
  });
});

describe('structured JSON and conditions', () => {
  test('extraction order: raw JSON, a ```json fence, then the first { … last } substring; arrays are not objects', () => {
    expect(extractJsonObject(' {"a": 1} ')).toEqual({ a: 1 });
    expect(extractJsonObject('text\n```json\n{"a": 2}\n```\nmore {"b": 3}')).toEqual({ a: 2 });
    expect(extractJsonObject('Result: {"a": {"b": 3}} done')).toEqual({ a: { b: 3 } });
    expect(extractJsonObject('[1, 2]')).toBeUndefined();
    expect(extractJsonObject('no json here')).toBeUndefined();
  });
  test('operators are case-insensitive, with dot paths; the first set operator is used', () => {
    const obj = { data: { status: 'OK', n: 3, flag: null }, list: ['x'] };
    expect(resolveField(obj, 'data.status')).toBe('OK');
    expect(resolveField(obj, 'data.missing.deep')).toBeUndefined();
    expect(evaluateCondition({ Field: 'data.status', Is: 'ok' }, obj)).toBe(true);
    expect(evaluateCondition({ Field: 'data.n', Is: '3' }, obj)).toBe(true);
    expect(evaluateCondition({ Field: 'data.status', IsNot: 'ok' }, obj)).toBe(false);
    expect(evaluateCondition({ Field: 'data.absent', IsNot: 'ok' }, obj)).toBe(true);
    expect(evaluateCondition({ Field: 'data.status', Contains: 'k' }, obj)).toBe(true);
    expect(evaluateCondition({ Field: 'list', Contains: 'x' }, obj)).toBe(false);
    expect(evaluateCondition({ Field: 'data.flag', Exists: true }, obj)).toBe(false);
    expect(evaluateCondition({ Field: 'data.flag', Exists: false }, obj)).toBe(true);
    expect(evaluateCondition({ Field: 'data.status', Exists: true }, obj)).toBe(true);
    expect(evaluateCondition({ Field: 'data.status', Is: 'no', Exists: true }, obj)).toBe(false);
    expect(evaluateCondition({ Field: 'data.status' }, obj)).toBe(false);
  });
});
