/**
 * `validateStrategyConfig(config, agentNames)`: every field of every table of fuseraft checked
 * on the raw (parsed YAML) orchestration block, pure. Each problem has a field path, a severity and
 * a message saying what to write instead (closest-name suggestions for agents, states, nodes,
 * validators, contracts and field names). Meant to run at compile time: the compiler maps each
 * path under the pattern's location to a file:line diagnostic.
 */
import { editDistance } from '../shared/edit-distance';
import { contractNamesOf, validatorsOf } from './evidence';
import { entryNodeOf, fanOutGroup, fanOutJoin, graphLayers } from './keyword-graph';
import { normalizeKeyword, sameKeyword } from './keywords';
import { reachableStates } from './statemachine';
import {
  BUILTIN_VALIDATORS, STRUCTURED_OPERATORS, CONTRACT_REQUIREMENTS, FAILURE_ACTIONS, FAILURE_KINDS, GraphConfig, MERGE_STRATEGIES, SELECTION_TYPES,
  SelectionType, TERMINATION_TYPES,
} from './types';

export type StrategyPath = (string | number)[];
/**
 * What kind of rule a problem breaks, so a caller (the compiler) can give each kind its own stable
 * diagnostic code: a name of an agent that is not declared; a reference to an undeclared state,
 * node, sub-graph or contract; a field that is unknown, of the wrong type or out of range; a name
 * outside a fixed vocabulary (selection/termination type, validator, merge strategy, HandoffContext
 * source, model); a structural rule (Targets without Parallel, a join state among its targets, a node
 * nobody can leave, …); and the warnings: a field or entry that has no effect, a keyword no route
 * owns, an unreachable state or node.
 */
export type StrategyRule = 'unknown-agent' | 'unknown-reference' | 'field' | 'unknown-name' | 'structure' | 'ignored' | 'unowned-keyword' | 'unreachable';
export interface StrategyProblem {
  path: StrategyPath;
  severity: 'error' | 'warning';
  message: string;
  rule: StrategyRule;
}

export interface ValidateOptions {
  /** Registry model ids, to check llm/magentic `Model` (skipped when absent). */
  models?: readonly string[];
}

/** `Selection.Routes[2].Agent` */
export function formatPath(path: StrategyPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The closest of `candidates` to `name` (case-insensitive equality first), if close enough. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const ci = candidates.find((c) => c.toLowerCase() === name.toLowerCase());
  if (ci) return ci;
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestD) { bestD = d; best = c; }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

const SELECTION_FIELDS = ['Type', 'DefaultAgent', 'Routes', 'StructuredRoutes', 'StateMachine', 'Graph', 'ScatterGather', 'MapReduce', 'Model', 'Prompt', 'Magentic', 'Adversarial'];
/** The Selection fields each Type reads (Type itself aside). */
const FIELDS_BY_TYPE: Record<SelectionType, string[]> = {
  sequential: [], roundrobin: [], keyword: ['DefaultAgent', 'Routes'], structured: ['DefaultAgent', 'StructuredRoutes'],
  statemachine: ['StateMachine'], graph: ['Graph'], scattergather: ['ScatterGather'], mapreduce: ['MapReduce'],
  llm: ['Model', 'Prompt'], magentic: ['Magentic'], adversarial: ['Adversarial'],
};
const REQUIRED_BLOCK: Partial<Record<SelectionType, string>> = {
  structured: 'StructuredRoutes', statemachine: 'StateMachine', graph: 'Graph', scattergather: 'ScatterGather',
  mapreduce: 'MapReduce', llm: 'Model', magentic: 'Magentic', adversarial: 'Adversarial',
};
const ROUTE_FIELDS = ['Keyword', 'Agent', 'Validator', 'Validators', 'SourceAgents', 'RequiredCommandPattern', 'RequireHumanApproval'];
const STRUCTURED_ROUTE_FIELDS = ['Agent', 'Condition', 'SourceAgents'];
const CONDITION_FIELDS = ['Field', ...STRUCTURED_OPERATORS];
const TRANSITION_FIELDS = ['To', 'Signal', 'Contract', 'Contracts', 'SourceAgents', 'MaxRevisits', 'ReviewArtifactPath', 'HandoffContext', 'RecoveryAgent', 'Parallel', 'Targets', 'Merge'];
const NODE_FIELDS = ['Id', 'Agent', 'SubGraphId', 'Terminal', 'Parallel', 'Validators'];
const EDGE_FIELDS = ['From', 'To', 'Keyword', 'Validator', 'Validators', 'SourceAgents', 'RequiredCommandPattern', 'ShellFallbackPattern', 'RequireHumanApproval', 'RecoveryAgent'];
const TERMINATION_FIELDS = ['Type', 'Pattern', 'AgentNames', 'MaxIterations', 'Strategies'];
const TERMINATION_FIELDS_BY_TYPE: Record<string, string[]> = { regex: ['Pattern', 'AgentNames'], maxiterations: [], composite: ['Strategies'] };

class Ctx {
  problems: StrategyProblem[] = [];
  constructor(readonly agents: readonly string[], readonly opts: ValidateOptions) {}
  err(path: StrategyPath, message: string, rule: StrategyRule = 'structure'): void { this.problems.push({ path, severity: 'error', message, rule }); }
  warn(path: StrategyPath, message: string, rule: StrategyRule = 'ignored'): void { this.problems.push({ path, severity: 'warning', message, rule }); }

  obj(v: unknown, path: StrategyPath, what: string): v is Obj {
    if (isObj(v)) return true;
    this.err(path, `${what} must be a mapping of fields (e.g. \`${formatPath(path).split('.').pop()}:\` followed by indented \`Field: value\` lines)`, 'field');
    return false;
  }
  /** Unknown fields, with the closest known one. */
  fields(o: Obj, allowed: readonly string[], path: StrategyPath, what: string, hint: Record<string, string> = {}): void {
    for (const k of Object.keys(o)) {
      if (allowed.includes(k)) continue;
      if (hint[k]) { this.err([...path, k], hint[k], 'field'); continue; }
      const near = closestName(k, allowed);
      this.err([...path, k], `unknown field \`${k}\` in ${what}${near ? `; did you mean \`${near}\`?` : ''} (fields: ${allowed.join(', ')})`, 'field');
    }
  }
  str(o: Obj, k: string, path: StrategyPath, required: boolean): string | undefined {
    const v = o[k];
    if (v === undefined || v === null) {
      if (required) this.err([...path, k], `\`${k}\` is required; write \`${k}: <text>\``, 'field');
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') { this.err([...path, k], `\`${k}\` must be a non-empty string`, 'field'); return undefined; }
    return v;
  }
  bool(o: Obj, k: string, path: StrategyPath): boolean | undefined {
    const v = o[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') { this.err([...path, k], `\`${k}\` must be true or false`, 'field'); return undefined; }
    return v;
  }
  int(o: Obj, k: string, path: StrategyPath, min: number, required = false): number | undefined {
    const v = o[k];
    if (v === undefined) {
      if (required) this.err([...path, k], `\`${k}\` is required; write an integer ≥ ${min}`, 'field');
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) { this.err([...path, k], `\`${k}\` must be an integer ≥ ${min} (got ${JSON.stringify(v)})`, 'field'); return undefined; }
    return v;
  }
  strList(o: Obj, k: string, path: StrategyPath, required = false): string[] | undefined {
    const v = o[k];
    if (v === undefined) {
      if (required) this.err([...path, k], `\`${k}\` is required; write a list (\`- item\` lines)`, 'field');
      return undefined;
    }
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.trim() === '')) { this.err([...path, k], `\`${k}\` must be a list of names`, 'field'); return undefined; }
    return v as string[];
  }
  /** A name that must be one of `known` (agents, states, nodes, …). */
  known(name: string, known: readonly string[], path: StrategyPath, kind: string, fix: string): boolean {
    if (known.includes(name)) return true;
    const near = closestName(name, known);
    const rule: StrategyRule = kind === 'agent' ? 'unknown-agent' : ['state', 'node', 'sub-graph', 'contract'].includes(kind) ? 'unknown-reference' : 'unknown-name';
    this.err(path, `unknown ${kind} \`${name}\`${near ? `; did you mean \`${near}\`?` : ''} (${fix}: ${known.join(', ') || 'none'})`, rule);
    return false;
  }
  agent(name: string | undefined, path: StrategyPath): void {
    if (name !== undefined) this.known(name, this.agents, path, 'agent', 'declared agents');
  }
  agentField(o: Obj, k: string, path: StrategyPath, required: boolean): string | undefined {
    const a = this.str(o, k, path, required);
    this.agent(a, [...path, k]);
    return a;
  }
  agentList(o: Obj, k: string, path: StrategyPath, required = false): string[] | undefined {
    const l = this.strList(o, k, path, required);
    l?.forEach((a, i) => this.agent(a, [...path, k, i]));
    if (required && l && l.length === 0) this.err([...path, k], `\`${k}\` needs at least one agent`, 'field');
    return l;
  }
  validatorNames(o: Obj, path: StrategyPath): string[] {
    const single = this.str(o, 'Validator', path, false);
    const many = this.strList(o, 'Validators', path);
    const check = (n: string, p: StrategyPath): void => { this.known(n, BUILTIN_VALIDATORS, p, 'validator', 'built-in validators'); };
    if (single) check(single, [...path, 'Validator']);
    many?.forEach((n, i) => check(n, [...path, 'Validators', i]));
    if (single && many && many.length) this.warn([...path, 'Validator'], '`Validators` takes precedence when both are set, so `Validator` is ignored; move it into the `Validators` list');
    return validatorsOf({ Validator: single, Validators: many });
  }
  /** RequiredCommandPattern / ShellFallbackPattern only matter with their validator. */
  patternNeeds(o: Obj, path: StrategyPath, validators: readonly string[]): void {
    if (this.str(o, 'RequiredCommandPattern', path, false) && !validators.includes('RequireShellPass')) this.warn([...path, 'RequiredCommandPattern'], '`RequiredCommandPattern` is only used with the RequireShellPass validator; add RequireShellPass to `Validators` or remove it');
    if (o.ShellFallbackPattern !== undefined && this.str(o, 'ShellFallbackPattern', path, false) && !validators.includes('RequireWriteFile')) this.warn([...path, 'ShellFallbackPattern'], '`ShellFallbackPattern` is only used with the RequireWriteFile validator; add RequireWriteFile to `Validators` or remove it');
  }
  list(v: unknown, path: StrategyPath, what: string): unknown[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) { this.err(path, `${what} must be a list (\`- \` entries)`, 'field'); return undefined; }
    return v;
  }
}

/** Two SourceAgents restrictions can match the same author (omitted = any). */
const overlap = (a?: readonly string[], b?: readonly string[]): boolean => !a?.length || !b?.length || a.some((x) => b.includes(x));

function validateRoutes(c: Ctx, sel: Obj, path: StrategyPath): void {
  const routes = c.list(sel.Routes, [...path, 'Routes'], '`Routes`');
  if (!routes || routes.length === 0) {
    c.warn([...path, 'Routes'], 'keyword selection without `Routes`: every reply goes to DefaultAgent; add routes (`- Keyword: … Agent: …`)');
    return;
  }
  const seen: { kw: string; src?: string[]; i: number }[] = [];
  routes.forEach((r, i) => {
    const p: StrategyPath = [...path, 'Routes', i];
    if (!c.obj(r, p, 'a route')) return;
    c.fields(r, ROUTE_FIELDS, p, 'a route');
    const kw = c.str(r, 'Keyword', p, true);
    if (kw !== undefined && normalizeKeyword(kw) === '') c.err([...p, 'Keyword'], 'the keyword is empty once `*` and `_` are stripped; use letters, e.g. `HANDOFF TO TESTER`');
    c.agentField(r, 'Agent', p, true);
    const src = c.agentList(r, 'SourceAgents', p);
    const validators = c.validatorNames(r, p);
    c.patternNeeds(r, p, validators);
    c.bool(r, 'RequireHumanApproval', p);
    if (kw !== undefined) {
      const dup = seen.find((s) => sameKeyword(s.kw, kw) && overlap(s.src, src));
      if (dup) c.warn(p, `Routes[${dup.i}] already routes "${kw}" for ${src?.length ? src.join(', ') : 'any agent'}, so this route never fires; restrict SourceAgents or remove it`);
      seen.push({ kw, src, i });
    }
  });
}

function validateStructuredRoutes(c: Ctx, sel: Obj, path: StrategyPath): void {
  const routes = c.list(sel.StructuredRoutes, [...path, 'StructuredRoutes'], '`StructuredRoutes`');
  if (!routes) return;
  if (routes.length === 0) c.err([...path, 'StructuredRoutes'], '`StructuredRoutes` needs at least one route (`- Agent: … Condition: {Field: …, Is: …}`)');
  const noValidators = 'structured routes have no validators (the seed: "Structured routes have no Validator field"); use keyword or graph routing to gate a handoff on evidence';
  routes.forEach((r, i) => {
    const p: StrategyPath = [...path, 'StructuredRoutes', i];
    if (!c.obj(r, p, 'a structured route')) return;
    c.fields(r, STRUCTURED_ROUTE_FIELDS, p, 'a structured route', { Validator: noValidators, Validators: noValidators, Keyword: 'structured routes match JSON fields, not keywords: write `Condition: {Field: …, Is: …}` or use `Type: keyword`' });
    c.agentField(r, 'Agent', p, true);
    c.agentList(r, 'SourceAgents', p);
    const cond = r.Condition;
    if (cond === undefined) { c.err([...p, 'Condition'], '`Condition` is required; write `Condition: {Field: review_result, Is: "Yes"}`'); return; }
    if (!c.obj(cond, [...p, 'Condition'], '`Condition`')) return;
    const cp: StrategyPath = [...p, 'Condition'];
    c.fields(cond, CONDITION_FIELDS, cp, 'a condition');
    const field = c.str(cond, 'Field', cp, true);
    if (field !== undefined && field.split('.').some((s) => s === '')) c.err([...cp, 'Field'], `\`Field\` \`${field}\` has an empty segment; write a dot path such as \`data.status\``);
    const ops = STRUCTURED_OPERATORS.filter((op) => cond[op] !== undefined);
    if (ops.length === 0) c.err(cp, 'a condition needs exactly one operator: `Is`, `IsNot`, `Contains` or `Exists`');
    if (ops.length > 1) c.warn(cp, `several operators (${ops.join(', ')}): only \`${ops[0]}\` is evaluated (order Is, IsNot, Contains, Exists); keep exactly one`);
    for (const op of ['Is', 'IsNot', 'Contains'] as const) {
      const v = cond[op];
      if (v !== undefined && !['string', 'number', 'boolean'].includes(typeof v)) c.err([...cp, op], `\`${op}\` compares the field's string value: write a string, e.g. \`${op}: "Yes"\``);
    }
    if (cond.Exists !== undefined) c.bool(cond, 'Exists', cp);
  });
}

const HANDOFF_SOURCES = 'session_context, changes_recent[:N], brief_field:FIELD, file:PATH';
function checkHandoffSource(c: Ctx, src: string, path: StrategyPath, where: 'HandoffContext' | 'Context' = 'HandoffContext'): void {
  if (src === 'session_context' || src === 'changes_recent') return;
  if (src === 'own_history') { c.err(path, '`own_history` is not supported in HandoffContext (only in an agent\'s Context spec); use one of ' + HANDOFF_SOURCES, 'unknown-name'); return; }
  const m = /^(changes_recent|brief_field|file):(.*)$/.exec(src);
  if (m) {
    if (m[1] === 'changes_recent' && !/^[1-9]\d*$/.test(m[2])) c.err(path, `\`${src}\`: N in changes_recent:N must be a positive integer, e.g. changes_recent:5`);
    else if (m[2].trim() === '') c.err(path, `\`${src}\` needs a ${m[1] === 'file' ? 'path' : 'field name'} after the colon`);
    return;
  }
  c.err(path, `unknown ${where} source \`${src}\`; use one of ${where === 'Context' ? 'own_history, own_history:N, ' : ''}${HANDOFF_SOURCES}`, 'unknown-name');
}

/**
 * `Agents` entries that are fuseraft AgentConfig objects: `Name` plus an optional `Context` spec
 * (the HandoffContext sources and `own_history[:N]`); the agent's other settings live in its file.
 */
function validateAgentConfigs(c: Ctx, agents: unknown): void {
  if (!Array.isArray(agents)) return; // the compiler reports a non-list
  agents.forEach((a, i) => {
    if (!isObj(a)) return; // a name: the compiler resolves it
    const p: StrategyPath = ['Agents', i];
    const other = 'is defined by the agent file (its model, instructions and tools); an `Agents` entry holds only `Name` and `Context`';
    c.fields(a, ['Name', 'Context'], p, 'an Agents entry', Object.fromEntries(['Model', 'Instructions', 'Plugins', 'Description', 'FunctionChoice'].map((k) => [k, `\`${k}\` ${other}`])));
    c.str(a, 'Name', p, true);
    const ctx = c.list(a.Context, [...p, 'Context'], '`Context`');
    if (ctx && ctx.length === 0) c.err([...p, 'Context'], '`Context` needs at least one `- Source: …` entry (own_history, own_history:N, ' + HANDOFF_SOURCES + ')');
    let own = 0;
    ctx?.forEach((e, j) => {
      const hp: StrategyPath = [...p, 'Context', j];
      if (!c.obj(e, hp, 'a Context entry')) return;
      c.fields(e, ['Source', 'MaxChars', 'Label'], hp, 'a Context entry');
      const src = c.str(e, 'Source', hp, true);
      if (src !== undefined && (src === 'own_history' || src.startsWith('own_history:'))) {
        if (!/^own_history(:[1-9]\d*)?$/.test(src)) c.err([...hp, 'Source'], `\`${src}\`: N in own_history:N must be a positive integer, e.g. own_history:3`);
        if (++own > 1) c.err([...hp, 'Source'], '`own_history` is listed twice; keep one');
      } else if (src !== undefined) checkHandoffSource(c, src, [...hp, 'Source'], 'Context');
      c.int(e, 'MaxChars', hp, 1);
      c.str(e, 'Label', hp, false);
    });
  });
}

function validateMerge(c: Ctx, merge: unknown, path: StrategyPath): void {
  if (!c.obj(merge, path, '`Merge`')) return;
  c.fields(merge, ['Strategy', 'Agent', 'ConflictResolution'], path, 'Merge');
  const strategies: string[] = [];
  const s = c.str(merge, 'Strategy', path, false);
  if (s !== undefined && c.known(s, MERGE_STRATEGIES, [...path, 'Strategy'], 'merge strategy', 'merge strategies')) strategies.push(s);
  const cr = c.strList(merge, 'ConflictResolution', path);
  cr?.forEach((x, i) => { if (c.known(x, MERGE_STRATEGIES, [...path, 'ConflictResolution', i], 'merge strategy', 'merge strategies')) strategies.push(x); });
  const agent = c.agentField(merge, 'Agent', path, false);
  const needs = strategies.filter((x) => x === 'ranked' || x === 'semantic_diff');
  if (needs.length && agent === undefined) c.err([...path, 'Agent'], `\`${needs[0]}\` needs \`Merge.Agent\`: name the agent that scores or reconciles the branch outputs`);
}

function validateStateMachine(c: Ctx, root: Obj, sm: unknown, path: StrategyPath, contractNames: string[], hasTermination: boolean): void {
  if (!c.obj(sm, path, '`StateMachine`')) return;
  c.fields(sm, ['Initial', 'States'], path, 'StateMachine');
  const initial = c.str(sm, 'Initial', path, true);
  const states = sm.States;
  if (states === undefined) { c.err([...path, 'States'], '`States` is required: a map of state name → {Agent, Transitions}'); return; }
  if (!c.obj(states, [...path, 'States'], '`States`')) return;
  const names = Object.keys(states);
  if (names.length === 0) { c.err([...path, 'States'], '`States` needs at least one state'); return; }
  if (initial !== undefined) c.known(initial, names, [...path, 'Initial'], 'state', 'declared states');
  const branchStates = new Set<string>();
  let anyTerminal = false;
  for (const name of names) {
    const sp: StrategyPath = [...path, 'States', name];
    const st = states[name];
    if (!c.obj(st, sp, `state ${name}`)) continue;
    c.fields(st, ['Agent', 'Transitions', 'Terminal'], sp, `state ${name}`);
    c.agentField(st, 'Agent', sp, true);
    const terminal = c.bool(st, 'Terminal', sp);
    const ts = c.list(st.Transitions, [...sp, 'Transitions'], '`Transitions`') ?? [];
    if (terminal && ts.length) c.err([...sp, 'Terminal'], `state ${name} is Terminal but has Transitions; a terminal state has no outgoing transitions: remove \`Transitions\` or \`Terminal: true\``);
    if (terminal || ts.length === 0) anyTerminal = true;
    const seen: { sig?: string; src?: string[]; i: number }[] = [];
    ts.forEach((t, i) => {
      const tp: StrategyPath = [...sp, 'Transitions', i];
      if (!c.obj(t, tp, 'a transition')) return;
      c.fields(t, TRANSITION_FIELDS, tp, 'a transition');
      const to = c.str(t, 'To', tp, true);
      if (to !== undefined) c.known(to, names, [...tp, 'To'], 'state', 'declared states');
      const sig = c.str(t, 'Signal', tp, false);
      if (sig !== undefined && normalizeKeyword(sig) === '') c.err([...tp, 'Signal'], 'the signal is empty once `*` and `_` are stripped; use letters, e.g. `HANDOFF TO TESTER`');
      const src = c.agentList(t, 'SourceAgents', tp);
      const one = c.str(t, 'Contract', tp, false);
      const many = c.strList(t, 'Contracts', tp);
      const usesContracts = contractNamesOf({ Contract: one, Contracts: many }).length > 0;
      if (one !== undefined) c.known(one, contractNames, [...tp, 'Contract'], 'contract', 'contracts declared in Contracts');
      many?.forEach((n, j) => c.known(n, contractNames, [...tp, 'Contracts', j], 'contract', 'contracts declared in Contracts'));
      const maxRevisits = c.int(t, 'MaxRevisits', tp, 0);
      if (c.str(t, 'ReviewArtifactPath', tp, false) !== undefined && !maxRevisits) c.warn([...tp, 'ReviewArtifactPath'], '`ReviewArtifactPath` is only used when `MaxRevisits` > 0; set MaxRevisits or remove it');
      const hc = c.list(t.HandoffContext, [...tp, 'HandoffContext'], '`HandoffContext`');
      hc?.forEach((e, j) => {
        const hp: StrategyPath = [...tp, 'HandoffContext', j];
        if (!c.obj(e, hp, 'a HandoffContext entry')) return;
        c.fields(e, ['Source', 'MaxChars', 'Label'], hp, 'a HandoffContext entry');
        const s = c.str(e, 'Source', hp, true);
        if (s !== undefined) checkHandoffSource(c, s, [...hp, 'Source']);
        c.int(e, 'MaxChars', hp, 1);
        c.str(e, 'Label', hp, false);
      });
      const recovery = c.agentField(t, 'RecoveryAgent', tp, false);
      const parallel = c.bool(t, 'Parallel', tp);
      const targets = c.strList(t, 'Targets', tp);
      if (parallel) {
        if (!targets || targets.length === 0) c.err([...tp, 'Targets'], '`Parallel: true` needs `Targets`: the branch states to fan out to');
        targets?.forEach((b, j) => { if (c.known(b, names, [...tp, 'Targets', j], 'state', 'declared states')) branchStates.add(b); });
        if (to !== undefined && targets?.includes(to)) c.err([...tp, 'To'], `the join state \`${to}\` is also one of its Targets; \`To\` must be a separate state entered after all branches finish`);
        if (targets && new Set(targets).size !== targets.length) c.warn([...tp, 'Targets'], 'a state is listed twice in `Targets`; each branch runs once');
        if (usesContracts) c.warn(tp, 'contracts are not evaluated on parallel transitions; put them on the transition that leaves the join state');
        if (recovery !== undefined) c.warn([...tp, 'RecoveryAgent'], '`RecoveryAgent` on a parallel transition is ignored');
        if (t.Merge !== undefined) validateMerge(c, t.Merge, [...tp, 'Merge']);
      } else {
        if (targets !== undefined) c.err([...tp, 'Targets'], '`Targets` without `Parallel: true`; add `Parallel: true` to fan out, or remove `Targets` and route with `To`');
        if (t.Merge !== undefined) c.warn([...tp, 'Merge'], '`Merge` is ignored when `Parallel` is false');
      }
      const dup = seen.find((x) => (x.sig === undefined || (sig !== undefined && sameKeyword(x.sig, sig))) && overlap(x.src, src) && !(x.src?.length && !src?.length));
      if (dup) c.warn(tp, dup.sig === undefined ? `Transitions[${dup.i}] has no Signal and fires automatically first, so this transition never fires` : `Transitions[${dup.i}] already handles signal "${sig}", so this transition never fires`);
      seen.push({ sig, src, i });
    });
  }
  for (const b of branchStates) {
    const st = states[b];
    if (isObj(st) && Array.isArray(st.Transitions) && st.Transitions.length) c.warn([...path, 'States', b, 'Transitions'], `state ${b} is a parallel branch: branch agents run exactly one turn and their Transitions are not evaluated; remove them`);
  }
  if (initial !== undefined && names.includes(initial)) {
    try {
      const reach = reachableStates(sm as never);
      for (const n of names) if (!reach.has(n)) c.warn([...path, 'States', n], `state ${n} is unreachable from Initial \`${initial}\`; add a transition to it or remove it`, 'unreachable');
    } catch { /* shape errors already reported */ }
  }
  if (anyTerminal && !hasTermination && root.Termination === undefined) c.warn([...path], 'a terminal state re-invokes its agent every turn until a Termination strategy fires; add `Termination` (e.g. regex on the final agent, with MaxIterations)');
}

function validateGraph(c: Ctx, g: unknown, path: StrategyPath): void {
  if (!c.obj(g, path, '`Graph`')) return;
  c.fields(g, ['EntryNode', 'Nodes', 'Edges', 'MaxRetries', 'SubGraphs'], path, 'Graph');
  c.int(g, 'MaxRetries', path, 1);
  const subGraphs = g.SubGraphs;
  const subIds: string[] = [];
  if (subGraphs !== undefined && c.obj(subGraphs, [...path, 'SubGraphs'], '`SubGraphs`')) {
    for (const [id, spec] of Object.entries(subGraphs)) {
      subIds.push(id);
      const p: StrategyPath = [...path, 'SubGraphs', id];
      if (!c.obj(spec, p, `sub-graph ${id}`)) continue;
      c.fields(spec, ['Graph', 'MapReduce', 'ScatterGather'], p, `sub-graph ${id}`);
      const kinds = ['Graph', 'MapReduce', 'ScatterGather'].filter((k) => spec[k] !== undefined);
      if (kinds.length !== 1) c.err(p, `sub-graph ${id} must set exactly one of \`Graph\`, \`MapReduce\` or \`ScatterGather\`${kinds.length ? ` (it sets ${kinds.join(', ')})` : ''}`);
      if (spec.Graph !== undefined) validateGraph(c, spec.Graph, [...p, 'Graph']);
      if (spec.MapReduce !== undefined) validateMapReduce(c, spec.MapReduce, [...p, 'MapReduce']);
      if (spec.ScatterGather !== undefined) validateScatterGather(c, spec.ScatterGather, [...p, 'ScatterGather']);
    }
  }
  const nodes = c.list(g.Nodes, [...path, 'Nodes'], '`Nodes`');
  if (g.Nodes === undefined) c.err([...path, 'Nodes'], '`Nodes` is required: a list of `- Id: … Agent: …`');
  if (!nodes) return;
  if (nodes.length === 0) { c.err([...path, 'Nodes'], '`Nodes` needs at least one node'); return; }
  const ids: string[] = [];
  const usedSubs = new Set<string>();
  nodes.forEach((n, i) => {
    const p: StrategyPath = [...path, 'Nodes', i];
    if (!c.obj(n, p, 'a node')) return;
    c.fields(n, NODE_FIELDS, p, 'a node');
    const id = c.str(n, 'Id', p, true);
    if (id !== undefined) {
      if (ids.includes(id)) c.err([...p, 'Id'], `node id \`${id}\` is declared twice; node ids must be unique`);
      ids.push(id);
    }
    const agent = c.agentField(n, 'Agent', p, false);
    const sub = c.str(n, 'SubGraphId', p, false);
    if (agent !== undefined && sub !== undefined) c.err([...p, 'Agent'], '`Agent` must be empty when `SubGraphId` is set: a node runs either one agent or one sub-graph');
    if (agent === undefined && sub === undefined && n.Agent === undefined && n.SubGraphId === undefined) c.err(p, `node ${id ?? i} needs \`Agent\` (an agent name) or \`SubGraphId\` (a key of SubGraphs)`);
    if (sub !== undefined) { usedSubs.add(sub); c.known(sub, subIds, [...p, 'SubGraphId'], 'sub-graph', 'keys of Graph.SubGraphs'); }
    const terminal = c.bool(n, 'Terminal', p);
    c.bool(n, 'Parallel', p);
    const vs = c.strList(n, 'Validators', p);
    vs?.forEach((v, j) => c.known(v, BUILTIN_VALIDATORS, [...p, 'Validators', j], 'validator', 'built-in validators'));
    if (vs && vs.length && !terminal) c.warn([...p, 'Validators'], 'node `Validators` only gate a Terminal node; on other nodes put them on the outgoing edge');
  });
  for (const id of subIds) if (!usedSubs.has(id)) c.warn([...path, 'SubGraphs', id], `sub-graph ${id} is not used by any node (SubGraphId); remove it or reference it`);
  const entry = c.str(g, 'EntryNode', path, false);
  if (entry !== undefined) c.known(entry, ids, [...path, 'EntryNode'], 'node', 'node ids');
  if (g.Edges === undefined) c.err([...path, 'Edges'], '`Edges` is required (write `Edges: []` for a single terminal node)');
  const edges = c.list(g.Edges, [...path, 'Edges'], '`Edges`') ?? [];
  const nodeObj = (id: string): Obj | undefined => nodes.find((n) => isObj(n) && n.Id === id) as Obj | undefined;
  const seen: { from: string; kw?: string; src?: string[]; parallel: boolean; i: number }[] = [];
  let edgesOk = true;
  edges.forEach((e, i) => {
    const p: StrategyPath = [...path, 'Edges', i];
    if (!c.obj(e, p, 'an edge')) { edgesOk = false; return; }
    c.fields(e, EDGE_FIELDS, p, 'an edge');
    const from = c.str(e, 'From', p, true);
    const to = c.str(e, 'To', p, true);
    if (from === undefined || to === undefined) edgesOk = false;
    if (from !== undefined && !c.known(from, ids, [...p, 'From'], 'node', 'node ids')) edgesOk = false;
    if (to !== undefined && !c.known(to, ids, [...p, 'To'], 'node', 'node ids')) edgesOk = false;
    const kw = c.str(e, 'Keyword', p, false);
    if (kw !== undefined && normalizeKeyword(kw) === '') c.err([...p, 'Keyword'], 'the keyword is empty once `*` and `_` are stripped; use letters, e.g. `APPROVED`');
    const src = c.agentList(e, 'SourceAgents', p);
    const validators = c.validatorNames(e, p);
    c.patternNeeds(e, p, validators);
    c.bool(e, 'RequireHumanApproval', p);
    const recovery = c.agentField(e, 'RecoveryAgent', p, false);
    if (recovery !== undefined && validators.length === 0) c.warn([...p, 'RecoveryAgent'], '`RecoveryAgent` runs only after validator failures on this edge, and the edge has no validators');
    if (from !== undefined && nodeObj(from)?.Terminal === true) c.warn(p, `node ${from} is Terminal: its outgoing edges are never evaluated (the session ends after it runs); route through a non-terminal node instead`);
    if (from !== undefined) {
      const parallel = to !== undefined && nodeObj(to)?.Parallel === true;
      const dup = seen.find((x) => x.from === from && (x.kw === undefined || (kw !== undefined && sameKeyword(x.kw, kw))) && overlap(x.src, src) && !(x.src?.length && !src?.length) && !(x.parallel && parallel));
      if (dup) c.warn(p, dup.kw === undefined ? `Edges[${dup.i}] leaves ${from} unconditionally and is evaluated first, so this edge never fires` : `Edges[${dup.i}] already fires on "${kw}" from ${from} (first matching edge wins), so this edge never fires`);
      seen.push({ from, kw, src, parallel, i });
    }
  });
  if (!edgesOk || ids.length !== nodes.length) return;
  const graph = g as unknown as GraphConfig;
  for (const n of graph.Nodes) {
    if (!n.Terminal && !graph.Edges.some((e) => e.From === n.Id) && !n.Parallel) c.err([...path, 'Nodes', graph.Nodes.indexOf(n)], `node ${n.Id} has no outgoing edges and is not Terminal, so the session can never leave it; add \`Terminal: true\` or an edge from it`);
  }
  const { layer } = graphLayers(graph);
  const entryId = entryNodeOf(graph);
  graph.Nodes.forEach((n, i) => { if (layer[n.Id] === undefined) c.warn([...path, 'Nodes', i], `node ${n.Id} is unreachable from EntryNode \`${entryId}\`; add an edge to it or remove it`, 'unreachable'); });
  const checkedGroups = new Set<string>();
  graph.Edges.forEach((e, i) => {
    if (graph.Nodes.find((n) => n.Id === e.To)?.Parallel !== true) return;
    const group = fanOutGroup(graph, e).map((x) => x.To);
    const key = `${e.From}|${normalizeKeyword(e.Keyword ?? '')}`;
    if (checkedGroups.has(key)) return;
    checkedGroups.add(key);
    if (fanOutJoin(graph, group) === undefined) c.err([...path, 'Edges', i], `the Parallel nodes ${group.join(', ')} triggered by ${e.Keyword ? `"${e.Keyword}"` : 'this edge'} need one unconditional edge each (no Keyword) to the same join node, where their merged outputs go`);
  });
}

function validateScatterGather(c: Ctx, v: unknown, path: StrategyPath): void {
  if (!c.obj(v, path, '`ScatterGather`')) return;
  c.fields(v, ['Participants', 'Synthesizer', 'MaxConcurrency'], path, 'ScatterGather');
  const ps = c.agentList(v, 'Participants', path, true);
  if (ps && new Set(ps).size !== ps.length) c.warn([...path, 'Participants'], 'an agent is listed twice in `Participants`');
  c.agentField(v, 'Synthesizer', path, true);
  c.int(v, 'MaxConcurrency', path, 0);
}

function validateMapReduce(c: Ctx, v: unknown, path: StrategyPath): void {
  if (!c.obj(v, path, '`MapReduce`')) return;
  c.fields(v, ['Splitter', 'Mapper', 'Reducer', 'ItemsJsonPath', 'MaxConcurrency', 'MaxSplitterRetries'], path, 'MapReduce');
  for (const k of ['Splitter', 'Mapper', 'Reducer']) c.agentField(v, k, path, true);
  const ip = c.str(v, 'ItemsJsonPath', path, false);
  if (ip !== undefined && ip.split('.').some((s) => s === '')) c.err([...path, 'ItemsJsonPath'], `\`ItemsJsonPath\` \`${ip}\` has an empty segment; write a dot path such as \`results.items\``);
  c.int(v, 'MaxConcurrency', path, 0);
  c.int(v, 'MaxSplitterRetries', path, 1);
}

function validateModel(c: Ctx, v: unknown, path: StrategyPath): void {
  let id: string | undefined;
  if (typeof v === 'string' && v.trim()) id = v;
  else if (isObj(v)) {
    c.fields(v, ['ModelId'], path, 'Model');
    id = c.str(v, 'ModelId', path, true);
  } else c.err(path, '`Model` must be a model id or `{ModelId: <id>}`');
  if (id !== undefined && c.opts.models) c.known(id, c.opts.models, path, 'model', 'registered models');
}

function validateTermination(c: Ctx, t: unknown, path: StrategyPath): void {
  if (!c.obj(t, path, '`Termination`')) return;
  c.fields(t, TERMINATION_FIELDS, path, 'a termination strategy');
  const type = c.str(t, 'Type', path, true);
  c.int(t, 'MaxIterations', path, 1, type === 'maxiterations');
  if (type === undefined || !c.known(type, TERMINATION_TYPES, [...path, 'Type'], 'termination type', 'termination types')) return;
  for (const k of ['Pattern', 'AgentNames', 'Strategies']) {
    if (t[k] !== undefined && !TERMINATION_FIELDS_BY_TYPE[type].includes(k)) c.warn([...path, k], `\`${k}\` is ignored for \`Type: ${type}\``);
  }
  if (type === 'regex') {
    const pattern = c.str(t, 'Pattern', path, true);
    if (pattern !== undefined) {
      try { new RegExp(pattern); } catch (e) { c.err([...path, 'Pattern'], `\`${pattern}\` is not a valid regular expression here (${(e as Error).message}); .NET-only syntax such as inline (?i) is not supported`, 'field'); }
    }
    c.agentList(t, 'AgentNames', path);
  }
  if (type === 'composite') {
    const ss = c.list(t.Strategies, [...path, 'Strategies'], '`Strategies`');
    if (!ss || ss.length === 0) c.err([...path, 'Strategies'], 'a composite strategy needs `Strategies`: a list of child strategies (regex, maxiterations, composite)');
    ss?.forEach((s, i) => validateTermination(c, s, [...path, 'Strategies', i]));
  }
}

/** Literal keywords a termination regex looks for (`\bAPPROVED\b`, `TASK COMPLETE`). */
function literalKeywords(t: unknown): string[] {
  if (!isObj(t)) return [];
  const own = t.Type === 'regex' && typeof t.Pattern === 'string' ? [t.Pattern.replace(/\\b|\^|\$/g, '')].filter((p) => /^[A-Za-z][A-Za-z0-9 ]*$/.test(p)) : [];
  return [...own, ...(Array.isArray(t.Strategies) ? t.Strategies.flatMap(literalKeywords) : [])];
}

function validateContracts(c: Ctx, v: unknown, path: StrategyPath): string[] {
  const list = c.list(v, path, '`Contracts`');
  const names: string[] = [];
  list?.forEach((ct, i) => {
    const p: StrategyPath = [...path, i];
    if (!c.obj(ct, p, 'a contract')) return;
    c.fields(ct, ['Name', 'Requires'], p, 'a contract');
    const name = c.str(ct, 'Name', p, true);
    if (name !== undefined) {
      if (names.includes(name)) c.err([...p, 'Name'], `contract \`${name}\` is declared twice`);
      names.push(name);
    }
    const reqs = c.list(ct.Requires, [...p, 'Requires'], '`Requires`');
    if (!reqs || reqs.length === 0) c.err([...p, 'Requires'], 'a contract needs `Requires`: a list of `- FilesWritten: {Source, Field}` / `- CommandSucceeded: {PatternField}`');
    reqs?.forEach((r, j) => {
      const rp: StrategyPath = [...p, 'Requires', j];
      if (!c.obj(r, rp, 'a requirement')) return;
      c.fields(r, CONTRACT_REQUIREMENTS, rp, 'a requirement');
      const kinds = CONTRACT_REQUIREMENTS.filter((k) => r[k] !== undefined);
      if (kinds.length !== 1) c.err(rp, `a requirement sets exactly one of ${CONTRACT_REQUIREMENTS.join(', ')}${kinds.length ? ` (this one sets ${kinds.join(', ')}: split it into two entries)` : ''}`);
      if (r.FilesWritten !== undefined && c.obj(r.FilesWritten, [...rp, 'FilesWritten'], '`FilesWritten`')) {
        c.fields(r.FilesWritten, ['Source', 'Field'], [...rp, 'FilesWritten'], 'FilesWritten');
        c.str(r.FilesWritten, 'Source', [...rp, 'FilesWritten'], true);
        c.str(r.FilesWritten, 'Field', [...rp, 'FilesWritten'], true);
      }
      if (r.CommandSucceeded !== undefined && c.obj(r.CommandSucceeded, [...rp, 'CommandSucceeded'], '`CommandSucceeded`')) {
        c.fields(r.CommandSucceeded, ['PatternField', 'Source'], [...rp, 'CommandSucceeded'], 'CommandSucceeded');
        c.str(r.CommandSucceeded, 'PatternField', [...rp, 'CommandSucceeded'], true);
        c.str(r.CommandSucceeded, 'Source', [...rp, 'CommandSucceeded'], false);
      }
    });
  });
  return names;
}

/** The selection types whose refused turns are classified (fuseraft's "Failure classification" row). */
export const CLASSIFYING_TYPES: readonly SelectionType[] = ['keyword', 'statemachine', 'graph'];

/** `FailureHandling: {<failure type>: <action>}`: known types, known actions, and only where failures are classified. */
function validateFailureHandling(c: Ctx, v: unknown, type: SelectionType | undefined): void {
  const path: StrategyPath = ['FailureHandling'];
  if (!isObj(v)) {
    c.err(path, `\`FailureHandling\` maps a failure type to its handling, e.g. \`FailureHandling: {NoProgress: escalate, ConflictingEvidence: audit}\` (failure types: ${FAILURE_KINDS.join(', ')}; actions: ${FAILURE_ACTIONS.join(', ')})`, 'field');
    return;
  }
  for (const [k, a] of Object.entries(v)) {
    if (!c.known(k, FAILURE_KINDS, [...path, k], 'failure type', 'failure types')) continue;
    if (typeof a !== 'string') { c.err([...path, k], `the handling of ${k} must be one of ${FAILURE_ACTIONS.join(', ')}`, 'field'); continue; }
    c.known(a, FAILURE_ACTIONS, [...path, k], 'failure handling', 'actions');
  }
  if (type !== undefined && !CLASSIFYING_TYPES.includes(type)) c.warn(path, `\`FailureHandling\` is ignored for \`Type: ${type}\`: only ${CLASSIFYING_TYPES.join(', ')} classify failures`);
}

/**
 * Validate a fuseraft orchestration block `{Selection, Termination?, Contracts?}` (parsed YAML)
 * against the declared agent names (in declaration order). Empty result = valid; warnings do not
 * block, errors do.
 */
export function validateStrategyConfig(config: unknown, agentNames: readonly string[], opts: ValidateOptions = {}): StrategyProblem[] {
  const c = new Ctx(agentNames, opts);
  if (!c.obj(config, [], 'the orchestration block')) return c.problems;
  c.fields(config, ['Selection', 'Termination', 'Contracts', 'FailureHandling', 'Verifier', 'Agents'], [], 'the orchestration block');
  const contractNames = config.Contracts !== undefined ? validateContracts(c, config.Contracts, ['Contracts']) : [];
  if (config.Termination !== undefined) validateTermination(c, config.Termination, ['Termination']);
  const sel = config.Selection;
  if (sel === undefined) { c.err(['Selection'], '`Selection` is required: write `Selection: {Type: keyword, …}`'); return c.problems; }
  if (!c.obj(sel, ['Selection'], '`Selection`')) return c.problems;
  c.fields(sel, SELECTION_FIELDS, ['Selection'], 'Selection');
  const type = c.str(sel, 'Type', ['Selection'], true);
  if (type === undefined || !c.known(type, SELECTION_TYPES, ['Selection', 'Type'], 'selection type', 'selection types')) return c.problems;
  const t = type as SelectionType;
  if (config.FailureHandling !== undefined) validateFailureHandling(c, config.FailureHandling, t);
  validateAgentConfigs(c, config.Agents);
  if (config.Verifier !== undefined) {
    c.agentField(config, 'Verifier', [], false);
    if (t !== 'statemachine') c.warn(['Verifier'], `\`Verifier\` is ignored for \`Type: ${t}\`: only the state machine integrates the Verifier`);
  }
  if (agentNames.length === 0) c.err(['Selection'], 'the orchestration declares no agents; list the agents it runs');
  for (const k of SELECTION_FIELDS) {
    if (k !== 'Type' && sel[k] !== undefined && !FIELDS_BY_TYPE[t].includes(k)) c.warn(['Selection', k], `\`${k}\` is ignored for \`Type: ${t}\`${FIELDS_BY_TYPE[t].length ? ` (it reads ${FIELDS_BY_TYPE[t].join(', ')})` : ''}`);
  }
  const req = REQUIRED_BLOCK[t];
  if (req && sel[req] === undefined) c.err(['Selection', req], `\`Type: ${t}\` needs \`${req}\``);
  if (FIELDS_BY_TYPE[t].includes('DefaultAgent')) c.agentField(sel, 'DefaultAgent', ['Selection'], false);
  const hasTermination = config.Termination !== undefined;
  switch (t) {
    case 'roundrobin':
      if (!hasTermination) c.warn(['Selection', 'Type'], 'roundrobin runs until a Termination strategy fires; add `Termination` (e.g. `Type: maxiterations`)');
      break;
    case 'keyword': {
      validateRoutes(c, sel, ['Selection']);
      const routes = Array.isArray(sel.Routes) ? sel.Routes.filter(isObj) : [];
      for (const kw of literalKeywords(config.Termination)) {
        if (!routes.some((r) => typeof r.Keyword === 'string' && sameKeyword(r.Keyword, kw))) {
          c.warn(['Termination'], `"${kw}" is a termination keyword that no route owns: the routing engine reads keywords from Selection.Routes only; add \`- Keyword: ${kw}\` with \`Agent\` and \`SourceAgents\` naming the agent that emits it`, 'unowned-keyword');
        }
      }
      break;
    }
    case 'structured':
      validateStructuredRoutes(c, sel, ['Selection']);
      break;
    case 'statemachine':
      if (sel.StateMachine !== undefined) validateStateMachine(c, config, sel.StateMachine, ['Selection', 'StateMachine'], contractNames, hasTermination);
      break;
    case 'graph':
      if (sel.Graph !== undefined) validateGraph(c, sel.Graph, ['Selection', 'Graph']);
      break;
    case 'scattergather':
    case 'mapreduce':
      if (t === 'scattergather' && sel.ScatterGather !== undefined) validateScatterGather(c, sel.ScatterGather, ['Selection', 'ScatterGather']);
      if (t === 'mapreduce' && sel.MapReduce !== undefined) validateMapReduce(c, sel.MapReduce, ['Selection', 'MapReduce']);
      if (hasTermination) c.warn(['Termination'], `Termination strategies are not evaluated for \`Type: ${t}\`: the session ends after its last phase; remove \`Termination\``);
      break;
    case 'llm':
      if (sel.Model !== undefined) validateModel(c, sel.Model, ['Selection', 'Model']);
      c.str(sel, 'Prompt', ['Selection'], false);
      break;
    case 'magentic': {
      const m = sel.Magentic;
      if (m !== undefined && c.obj(m, ['Selection', 'Magentic'], '`Magentic`')) {
        const p: StrategyPath = ['Selection', 'Magentic'];
        c.fields(m, ['Model', 'Instructions', 'MaxRoundCount', 'MaxStallCount', 'MaxResetCount', 'EnablePlanReview'], p, 'Magentic');
        if (m.Model === undefined) c.err([...p, 'Model'], '`Model` is required: the manager model (`Model: {ModelId: …}`)');
        else validateModel(c, m.Model, [...p, 'Model']);
        c.str(m, 'Instructions', p, false);
        c.int(m, 'MaxRoundCount', p, 1);
        c.int(m, 'MaxStallCount', p, 1);
        c.int(m, 'MaxResetCount', p, 0);
        c.bool(m, 'EnablePlanReview', p);
      }
      if (hasTermination) c.warn(['Termination'], 'the Termination section is ignored for `Type: magentic` (MaxRoundCount, MaxStallCount and MaxResetCount end the session); remove it');
      break;
    }
    case 'adversarial': {
      const a = sel.Adversarial;
      if (a !== undefined && c.obj(a, ['Selection', 'Adversarial'], '`Adversarial`')) {
        const p: StrategyPath = ['Selection', 'Adversarial'];
        c.fields(a, ['Stages', 'Rounds', 'PassKeyword'], p, 'Adversarial');
        c.int(a, 'Rounds', p, 1);
        const pk = c.str(a, 'PassKeyword', p, false);
        if (pk !== undefined && normalizeKeyword(pk) === '') c.err([...p, 'PassKeyword'], 'the pass keyword is empty once `*` and `_` are stripped');
        const stages = c.list(a.Stages, [...p, 'Stages'], '`Stages`');
        if (!stages || stages.length === 0) c.err([...p, 'Stages'], '`Stages` needs at least one `- Generator: … Critic: …` pair');
        stages?.forEach((s, i) => {
          const sp: StrategyPath = [...p, 'Stages', i];
          if (!c.obj(s, sp, 'a stage')) return;
          c.fields(s, ['Generator', 'Critic', 'Label'], sp, 'a stage');
          const gen = c.agentField(s, 'Generator', sp, true);
          const critic = c.agentField(s, 'Critic', sp, true);
          if (gen !== undefined && gen === critic) c.err([...sp, 'Critic'], `the Critic must differ from the Generator (\`${gen}\`): independent review needs another agent`);
          c.str(s, 'Label', sp, false);
        });
      }
      break;
    }
    default:
      break;
  }
  return c.problems;
}
