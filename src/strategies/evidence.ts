/**
 * Validators and evidence contracts (fuseraft's "Built-in validators", "Contracts on transitions"),
 * pure checks over what the runtime observed during a turn (`TurnEvidence`: real write_file and
 * shell calls, artifact files it read) and over the turn's text — never over the model's claims
 * about files or commands. Each check says what is missing so the agent can be corrected.
 */
import { extractJsonObject, resolveField } from './json';
import type { ContractConfig, StateMachineConfig, Turn, ValidatorName } from './types';

export const BRIEF_FILE = 'brief.json';
export const TEST_REPORT_FILE = 'test-report.json';
export const TEST_STATUSES = ['pass', 'fail', 'skip'] as const;

/**
 * A failed check says what is missing; `conflict` marks evidence that contradicts the hand-off (a
 * matching command ran and failed, an artifact exists but is malformed or inconsistent) rather
 * than evidence that is simply absent: fuseraft's ConflictingEvidence vs MissingEvidence.
 */
export type Check = { ok: true } | { ok: false; reason: string; conflict?: boolean };
const OK: Check = { ok: true };
const fail = (reason: string, conflict = false): Check => ({ ok: false, reason, ...(conflict ? { conflict: true } : {}) });

/** Per-route options that shape validators (fuseraft's RequiredCommandPattern, ShellFallbackPattern). */
export interface ValidatorOptions {
  RequiredCommandPattern?: string;
  ShellFallbackPattern?: string;
}

/** "pipe-separated substrings": does `command` contain at least one of them? */
export function commandMatches(command: string, pattern: string): boolean {
  const parts = pattern.split('|').map((p) => p.trim()).filter(Boolean);
  return parts.length === 0 || parts.some((p) => command.includes(p));
}

const normPath = (p: string): string => p.trim().replace(/^\.\//, '');
const nonEmpty = (v: unknown): boolean => (typeof v === 'string' ? v.trim() !== '' : Array.isArray(v) ? v.length > 0 : false);

/** A JSON file the runtime read for this turn: its object, or why it is unusable. */
function readJson(turn: Turn, path: string): { obj?: Record<string, unknown>; error?: string; present?: boolean } {
  const content = turn.evidence?.files?.[path];
  if (content === undefined || content === null) return { error: `${path} does not exist` };
  try {
    const v: unknown = JSON.parse(content);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { error: `${path} is not a JSON object`, present: true };
    return { obj: v as Record<string, unknown> };
  } catch {
    return { error: `${path} is not valid JSON`, present: true };
  }
}

function written(turn: Turn): Set<string> {
  return new Set([...(turn.evidence?.writes ?? []), ...(turn.evidence?.changes ?? [])].map(normPath));
}

function passingCommands(turn: Turn): string[] {
  return (turn.evidence?.shell ?? []).filter((s) => s.exitCode === 0).map((s) => s.command);
}

function requireBrief(turn: Turn): Check {
  const { obj, error, present } = readJson(turn, BRIEF_FILE);
  if (!obj) return fail(`RequireBrief: ${error}; write ${BRIEF_FILE} with a non-empty goal, files_to_change and acceptance_criteria`, present);
  const missing = ['goal', 'files_to_change', 'acceptance_criteria'].filter((k) => !nonEmpty(obj[k]));
  return missing.length ? fail(`RequireBrief: ${BRIEF_FILE} has an empty or missing ${missing.join(', ')}`) : OK;
}

function requireWriteFile(turn: Turn, opts: ValidatorOptions): Check {
  if ((turn.evidence?.writes ?? []).length > 0) return OK;
  const fallback = opts.ShellFallbackPattern;
  if (fallback && passingCommands(turn).some((c) => commandMatches(c, fallback))) return OK;
  return fail(`RequireWriteFile: ${turn.agent} did not call write_file this turn${fallback ? ` (nor ran a passing shell command matching "${fallback}")` : ''}; write the file, then hand off`);
}

function requireAllFilesWritten(turn: Turn): Check {
  const { obj, error, present } = readJson(turn, BRIEF_FILE);
  if (!obj) return fail(`RequireAllFilesWritten: ${error}`, present);
  const files = obj.files_to_change;
  if (!Array.isArray(files) || files.length === 0) return fail(`RequireAllFilesWritten: ${BRIEF_FILE} lists no files_to_change`);
  const done = written(turn);
  const missing = files.filter((f) => typeof f !== 'string' || !done.has(normPath(f)));
  return missing.length ? fail(`RequireAllFilesWritten: not written yet: ${missing.map(String).join(', ')}`) : OK;
}

function requireShellPass(turn: Turn, opts: ValidatorOptions): Check {
  const pattern = opts.RequiredCommandPattern;
  const ok = passingCommands(turn).some((c) => !pattern || commandMatches(c, pattern));
  if (ok) return OK;
  // The last failing run, so the agent sees what to fix (its exit code and the end of its output).
  const failed = [...(turn.evidence?.shell ?? [])].reverse().find((r) => r.exitCode !== 0 && (!pattern || commandMatches(r.command, pattern)));
  const last = failed ? ` (\`${failed.command}\` exited ${failed.exitCode}${failed.outputTail?.trim() ? `: ${failed.outputTail.trim().slice(-300)}` : ''})` : '';
  return fail(`RequireShellPass: no shell command${pattern ? ` containing one of "${pattern}"` : ''} exited 0 this turn${last}; run it and fix the failures first`, failed !== undefined);
}

/** Structural checks on test-report.json: `tests` is a non-empty list of {name, status} with status
 * pass|fail|skip, and an optional `summary` {passed, failed, skipped} agrees with the list. */
function testReportValid(turn: Turn): Check {
  const { obj, error, present } = readJson(turn, TEST_REPORT_FILE);
  if (!obj) return fail(`TestReportValid: ${error}; write ${TEST_REPORT_FILE} with a "tests" list`, present);
  const tests = obj.tests;
  if (!Array.isArray(tests) || tests.length === 0) return fail(`TestReportValid: ${TEST_REPORT_FILE} needs a non-empty "tests" list`, true);
  const counts: Record<string, number> = { pass: 0, fail: 0, skip: 0 };
  for (const [i, t] of tests.entries()) {
    const e = t as Record<string, unknown> | null;
    if (!e || typeof e !== 'object' || !nonEmpty(e.name)) return fail(`TestReportValid: tests[${i}] needs a non-empty "name"`, true);
    const st = typeof e.status === 'string' ? e.status.toLowerCase() : '';
    if (!(TEST_STATUSES as readonly string[]).includes(st)) return fail(`TestReportValid: tests[${i}].status must be one of ${TEST_STATUSES.join(', ')}`, true);
    counts[st]++;
  }
  const s = obj.summary as Record<string, unknown> | undefined;
  if (s !== undefined) {
    const pairs: [string, string][] = [['passed', 'pass'], ['failed', 'fail'], ['skipped', 'skip']];
    for (const [k, st] of pairs) {
      if (s[k] !== undefined && s[k] !== counts[st]) return fail(`TestReportValid: summary.${k} is ${String(s[k])} but ${counts[st]} test(s) have status ${st}`, true);
    }
  }
  return OK;
}

/** The reviewer's reply carries {"review": [{criterion, verdict, evidence}, …]} with at least one
 * complete entry (raw, fenced or embedded JSON). */
function requireReviewJudgement(turn: Turn): Check {
  const obj = extractJsonObject(turn.text);
  const review = obj?.review;
  const complete = Array.isArray(review) && review.some((r) => r && typeof r === 'object' && ['criterion', 'verdict', 'evidence'].every((k) => nonEmpty((r as Record<string, unknown>)[k])));
  return complete ? OK : fail('RequireReviewJudgement: include a JSON object {"review": [{"criterion": …, "verdict": …, "evidence": …}]} with at least one complete judgement');
}

/** One dispatch table for the built-in validators. */
const VALIDATORS: Record<ValidatorName, (turn: Turn, opts: ValidatorOptions) => Check> = {
  RequireBrief: (t) => requireBrief(t),
  RequireWriteFile: requireWriteFile,
  RequireAllFilesWritten: (t) => requireAllFilesWritten(t),
  RequireShellPass: requireShellPass,
  TestReportValid: (t) => testReportValid(t),
  RequireReviewJudgement: (t) => requireReviewJudgement(t),
};

export function runValidator(name: string, turn: Turn, opts: ValidatorOptions = {}): Check {
  const v = (VALIDATORS as Record<string, (turn: Turn, opts: ValidatorOptions) => Check>)[name];
  return v ? v(turn, opts) : fail(`unknown validator ${name}`);
}

/** AND semantics: the first failure, in order. */
export function runValidators(names: readonly string[], turn: Turn, opts: ValidatorOptions = {}): Check {
  for (const n of names) {
    const r = runValidator(n, turn, opts);
    if (!r.ok) return r;
  }
  return OK;
}

/** The validators a route/edge runs: `Validators` takes precedence over `Validator` when both are set. */
export function validatorsOf(r: { Validator?: string; Validators?: string[] }): string[] {
  if (r.Validators && r.Validators.length) return r.Validators;
  return r.Validator ? [r.Validator] : [];
}

/** Evaluate one evidence contract (every requirement must hold). */
export function evaluateContract(contract: ContractConfig, turn: Turn): Check {
  for (const req of contract.Requires ?? []) {
    if (req.FilesWritten) {
      const { Source, Field } = req.FilesWritten;
      const { obj, error, present } = readJson(turn, Source);
      if (!obj) return fail(`contract ${contract.Name}: FilesWritten: ${error}`, present);
      const list = resolveField(obj, Field);
      if (!Array.isArray(list) || list.length === 0) return fail(`contract ${contract.Name}: FilesWritten: ${Source} has no file list at ${Field}`);
      const done = written(turn);
      const missing = list.filter((f) => typeof f !== 'string' || !done.has(normPath(f)));
      if (missing.length) return fail(`contract ${contract.Name}: FilesWritten: not written yet: ${missing.map(String).join(', ')}`);
    } else if (req.CommandSucceeded) {
      // A bundle compiled before the compiler made Source explicit (withCommandSources) keeps the
      // runtime default, so recorded runs evaluate as they did.
      const source = req.CommandSucceeded.Source ?? BRIEF_FILE;
      const { obj, error, present } = readJson(turn, source);
      const defaulted = req.CommandSucceeded.Source === undefined ? ` (CommandSucceeded names no \`Source\`: the default ${BRIEF_FILE} at the workspace root was read; give \`Source\` to read another file)` : '';
      if (!obj) return fail(`contract ${contract.Name}: CommandSucceeded: ${error}${defaulted}`, present);
      const pattern = resolveField(obj, req.CommandSucceeded.PatternField);
      if (typeof pattern !== 'string' || !pattern.trim()) return fail(`contract ${contract.Name}: CommandSucceeded: ${source} has no command at ${req.CommandSucceeded.PatternField}`);
      if (!passingCommands(turn).some((c) => commandMatches(c, pattern))) {
        // A matching run that failed contradicts the hand-off; none at all is missing evidence.
        const ranAndFailed = (turn.evidence?.shell ?? []).some((r) => r.exitCode !== 0 && commandMatches(r.command, pattern));
        return fail(`contract ${contract.Name}: CommandSucceeded: run \`${pattern}\` until it exits 0`, ranAndFailed);
      }
    } else {
      return fail(`contract ${contract.Name}: a requirement needs FilesWritten or CommandSucceeded`);
    }
  }
  return OK;
}

const fileName = (p: string): string => normPath(p).split('/').pop() ?? '';

/**
 * The file a `CommandSucceeded` requirement reads its command from: its own `Source`; without one,
 * the brief the same contract's `FilesWritten` names (fuseraft's contract pairs
 * `FilesWritten: {Source: .fuseraft/artifacts/brief.json}` with a `CommandSucceeded` whose
 * `PatternField` "reads the verify command from brief.json"); failing that, `brief.json` at the
 * workspace root, where the built-in validators read it.
 */
export function commandSourceOf(contract: ContractConfig, req: { Source?: string }): string {
  if (req.Source !== undefined) return req.Source;
  const sibling = (contract.Requires ?? []).map((r) => r.FilesWritten?.Source).find((s): s is string => typeof s === 'string' && fileName(s) === BRIEF_FILE);
  return sibling ?? BRIEF_FILE;
}

/**
 * The contracts with each `CommandSucceeded` Source that a sibling brief supplies made explicit
 * (`commandSourceOf`): the compiler stores this form, so a run reads the file its bundle names and
 * runs recorded from older bundles evaluate exactly as they did (no workflow change, no patch).
 */
export function withCommandSources<T extends ContractConfig>(contracts: readonly T[]): T[] {
  return contracts.map((c) => {
    // Only a sibling brief is written in: without one the runtime default (brief.json) applies as before.
    const needs = (r: ContractConfig['Requires'][number]): boolean => !!r.CommandSucceeded && r.CommandSucceeded.Source === undefined && commandSourceOf(c, r.CommandSucceeded) !== BRIEF_FILE;
    if (!(c.Requires ?? []).some(needs)) return c;
    return { ...c, Requires: c.Requires.map((r) => (needs(r) ? { ...r, CommandSucceeded: { ...r.CommandSucceeded!, Source: commandSourceOf(c, r.CommandSucceeded!) } } : r)) };
  });
}

/** A transition's contracts in fuseraft's order: `Contracts`, then `Contract`. */
export function contractNamesOf(t: { Contract?: string; Contracts?: string[] }): string[] {
  return [...(t.Contracts ?? []), ...(t.Contract ? [t.Contract] : [])];
}

/** Evaluate named contracts in order (AND); an unknown name fails. */
export function evaluateContracts(names: readonly string[], contracts: readonly ContractConfig[], turn: Turn): Check {
  for (const n of names) {
    const c = contracts.find((x) => x.Name === n);
    if (!c) return fail(`contract ${n} is not declared in Contracts`);
    const r = evaluateContract(c, turn);
    if (!r.ok) return r;
  }
  return OK;
}

// ---- what the runtime must gather ---------------------------------------------------------

/** Does this strategy read evidence at all (any validator or contract)? Only then is it gathered per turn. */
export function usesEvidence(config: { Selection?: unknown; Contracts?: unknown[] }): boolean {
  return (config.Contracts ?? []).length > 0 || /"(Validators?)"\s*:/.test(JSON.stringify(config.Selection ?? {}));
}

/** fuseraft's MaxRevisits escalation: the ReviewArtifactPath of every state-machine transition with MaxRevisits > 0. */
export function reviewArtifactPathsOf(config: { Selection?: { StateMachine?: StateMachineConfig } }): string[] {
  const states = Object.values(config.Selection?.StateMachine?.States ?? {});
  const paths = states.flatMap((st) => (st.Transitions ?? []).flatMap((t) => ((t.MaxRevisits ?? 0) > 0 && t.ReviewArtifactPath ? [t.ReviewArtifactPath] : [])));
  return [...new Set(paths)];
}

/** The artifact files a turn's evidence must hold: the built-in validators' files, every contract's Source and `extra`. */
export function artifactPathsOf(contracts: readonly ContractConfig[] = [], extra: readonly string[] = []): string[] {
  const paths = new Set<string>([BRIEF_FILE, TEST_REPORT_FILE, ...extra]);
  for (const c of contracts) {
    for (const r of c.Requires ?? []) {
      if (r.FilesWritten?.Source) paths.add(r.FilesWritten.Source);
      if (r.CommandSucceeded) paths.add(r.CommandSucceeded.Source ?? BRIEF_FILE);
    }
  }
  return [...paths];
}
