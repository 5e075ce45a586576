/**
 * The Execution Loop specification's "The Execution Loop", the inner loop of one Request: which calls of a model reply may
 * run now (their dependencies are met), which are refused (bad wire form, unknown reference,
 * dependency cycle, a write to a State path already written) and which are skipped (a dependency
 * failed, an alternative already wrote the path). Pure: the react workflow drives it
 * (src/workflows/react/execution-loop.ts), unit and property tests exercise it alone.
 *
 * Wire form (reserved argument keys, stripped before the tool sees its arguments):
 *   `_dependsOn`: a call id of the same reply, a State path `$.state.a.b`, or a list of them;
 *   `_outputPath`: the State path `$.state.a.b` the call's result is written to (write-once).
 * Calls whose output paths overlap (equal, or one inside the other) are alternatives: tried one at
 * a time in reply order (a later one waits until every earlier one has ended), the first success
 * wins and the rest are skipped.
 */
import type { JsonObject, JsonValue } from '../compiled/types';
import type { ToolCall } from './messages';

export const DEPENDS_ON_KEY = '_dependsOn';
export const OUTPUT_PATH_KEY = '_outputPath';
const PATH_RE = /^\$\.state(\.[A-Za-z_][A-Za-z0-9_-]*)+$/;
const PATH_HINT = 'a State path is written `$.state.<name>` (dots for nesting, e.g. `$.state.report.summary`)';

export type CallStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'refused';

export interface PlannedCall {
  id: string;
  name: string;
  /** Arguments without the reserved keys: what the tool sees. */
  args: JsonObject;
  dependsOnCalls: string[];
  /** State paths as segments (`$.state.a.b` -> ['a', 'b']). */
  dependsOnPaths: string[][];
  outputPath?: string[];
}

/** A call that ended without running (refused or skipped): the model reads `reason`. */
export interface Settled {
  id: string;
  status: 'skipped' | 'refused';
  reason: string;
}

/** `$.state.a.b` -> ['a', 'b'], or undefined when it is not a State path. */
export function parseStatePath(p: string): string[] | undefined {
  return PATH_RE.test(p) ? p.split('.').slice(2) : undefined;
}

export function formatStatePath(segs: string[]): string {
  return ['$', 'state', ...segs].join('.');
}

/** The value at `segs` in `state`, or undefined. */
export function readState(state: JsonObject, segs: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = state;
  for (const s of segs) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as JsonObject)[s];
  }
  return cur;
}

/** Equal, or one a prefix of the other: writing one changes what the other reads. */
export function overlaps(a: string[], b: string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Is anything already written at, above or below `segs`? */
export function written(state: JsonObject, segs: string[]): boolean {
  for (let i = 1; i <= segs.length; i++) {
    const v = readState(state, segs.slice(0, i));
    if (v === undefined) return false;
    if (i < segs.length && (v === null || typeof v !== 'object' || Array.isArray(v))) return true;
  }
  return true;
}

/** A copy of `state` with `value` at `segs` (callers check `written` first: State is write-once). */
export function writeState(state: JsonObject, segs: string[], value: JsonValue): JsonObject {
  const out: JsonObject = { ...state };
  let cur = out;
  segs.forEach((s, i) => {
    if (i === segs.length - 1) cur[s] = value;
    else {
      const next = cur[s];
      cur[s] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as JsonObject) } : {};
      cur = cur[s] as JsonObject;
    }
  });
  return out;
}

/** Split a call's reserved keys from its arguments; an error the model reads when they are malformed. */
export function planCall(call: ToolCall): { call: PlannedCall } | { error: string } {
  const args: JsonObject = { ...(call.arguments ?? {}) };
  const dep = args[DEPENDS_ON_KEY];
  const out = args[OUTPUT_PATH_KEY];
  delete args[DEPENDS_ON_KEY];
  delete args[OUTPUT_PATH_KEY];
  const deps = dep === undefined ? [] : typeof dep === 'string' ? [dep] : dep;
  if (!Array.isArray(deps) || deps.some((d) => typeof d !== 'string' || !d)) {
    return { error: `${DEPENDS_ON_KEY} must be a call id or a State path, or a list of them (e.g. ["call_1", "$.state.city"])` };
  }
  const dependsOnCalls: string[] = [];
  const dependsOnPaths: string[][] = [];
  for (const d of deps as string[]) {
    if (d.startsWith('$')) {
      const segs = parseStatePath(d);
      if (!segs) return { error: `${DEPENDS_ON_KEY} entry '${d}' is not a State path: ${PATH_HINT}` };
      dependsOnPaths.push(segs);
    } else dependsOnCalls.push(d);
  }
  let outputPath: string[] | undefined;
  if (out !== undefined) {
    outputPath = typeof out === 'string' ? parseStatePath(out) : undefined;
    if (!outputPath) return { error: `${OUTPUT_PATH_KEY} ${JSON.stringify(out)} is not a State path: ${PATH_HINT}` };
  }
  return { call: { id: call.id, name: call.name, args, dependsOnCalls, dependsOnPaths, ...(outputPath ? { outputPath } : {}) } };
}

/**
 * The calls of one Request and where each stands. The driver loops: `settle()` (refusals and
 * skips to report), `ready()` (start them), `complete()` as each finishes, until `done()`.
 */
export class ExecutionPlan {
  readonly calls: PlannedCall[] = [];
  private readonly status = new Map<string, CallStatus>();
  private readonly reasons = new Map<string, string>();
  /** Path (formatted) -> the call that wrote it in this Request. */
  private readonly writers = new Map<string, string>();
  private readonly unreported: Settled[] = [];

  /** State before this Request: what write-once refuses against (the Request's own writes make alternatives). */
  private readonly before: JsonObject;
  /** Streaming (the Execution Loop specification's "Request & Call Streaming"): calls still arrive; references and cycles are judged at close(). */
  private streaming: boolean;

  constructor(toolCalls: ToolCall[], private stateNow: JsonObject, opts: { streaming?: boolean } = {}) {
    this.before = stateNow;
    this.streaming = opts.streaming === true;
    for (const tc of toolCalls) this.plan(tc);
    if (!this.streaming) this.judgeReferences();
  }

  /**
   * A call that arrived from the stream (false when its id is already planned). It may start
   * before the reply ends; a call id or path it names that has not arrived yet just waits.
   */
  add(tc: ToolCall): boolean {
    if (!this.streaming) throw new Error('calls are added only while the reply streams');
    if (this.byId(tc.id)) return false;
    this.plan(tc);
    const c = this.byId(tc.id)!;
    if (this.status.get(c.id) === 'pending' && c.outputPath && written(this.before, c.outputPath)) this.refuseWrittenPath(c);
    return true;
  }

  /** The stream ended: every call is known, so unknown references and cycles are refused now. */
  close(): void {
    if (!this.streaming) return;
    this.streaming = false;
    this.judgeReferences();
  }

  get open(): boolean {
    return this.streaming;
  }

  get state(): JsonObject {
    return this.stateNow;
  }

  statusOf(id: string): CallStatus | undefined {
    return this.status.get(id);
  }

  byId(id: string): PlannedCall | undefined {
    return this.calls.find((c) => c.id === id);
  }

  /** Refusals and skips decided since the last call (each reported once), after propagating. */
  settle(): Settled[] {
    for (let changed = true; changed; ) {
      changed = false;
      for (const c of this.pendingCalls()) {
        const why = this.deadReason(c);
        if (why) {
          this.end(c.id, 'skipped', why);
          changed = true;
        }
      }
    }
    return this.unreported.splice(0);
  }

  /** Pending calls whose dependencies are met and whose earlier alternatives have all ended, in reply order. */
  ready(): string[] {
    return this.pendingCalls()
      .filter((c) => c.dependsOnCalls.every((d) => this.status.get(d) === 'succeeded'))
      .filter((c) => c.dependsOnPaths.every((p) => readState(this.stateNow, p) !== undefined))
      .filter((c) => earlierAlternatives(c, this.calls).every((o) => !['pending', 'running'].includes(this.status.get(o.id)!)))
      .map((c) => c.id);
  }

  start(id: string): void {
    if (this.status.get(id) !== 'pending') throw new Error(`call ${id} is not pending (${this.status.get(id)})`);
    this.status.set(id, 'running');
  }

  /**
   * A started call finished. A success with an output path writes `value` there (the slot was free
   * when it started and alternatives never run together, so the write cannot collide).
   */
  complete(id: string, ok: boolean, value?: JsonValue): void {
    if (this.status.get(id) !== 'running') throw new Error(`call ${id} is not running (${this.status.get(id)})`);
    this.status.set(id, ok ? 'succeeded' : 'failed');
    const c = this.byId(id)!;
    if (ok && c.outputPath) {
      this.stateNow = writeState(this.stateNow, c.outputPath, value ?? null);
      this.writers.set(formatStatePath(c.outputPath), id);
    }
  }

  /** Every call has ended (nothing pending or running). */
  done(): boolean {
    return this.calls.every((c) => {
      const s = this.status.get(c.id);
      return s !== 'pending' && s !== 'running';
    });
  }

  reason(id: string): string | undefined {
    return this.reasons.get(id);
  }

  private plan(tc: ToolCall): void {
    const p = planCall(tc);
    if ('error' in p) {
      this.calls.push({ id: tc.id, name: tc.name, args: {}, dependsOnCalls: [], dependsOnPaths: [] });
      this.end(tc.id, 'refused', p.error);
    } else {
      this.calls.push(p.call);
      this.status.set(tc.id, 'pending');
    }
  }

  private judgeReferences(): void {
    const ids = new Set(this.calls.map((c) => c.id));
    for (const c of this.pendingCalls()) this.refuseBadReferences(c, ids);
    this.refuseCycles();
  }

  private pendingCalls(): PlannedCall[] {
    return this.calls.filter((c) => this.status.get(c.id) === 'pending');
  }

  private end(id: string, status: 'skipped' | 'refused', reason: string): void {
    this.status.set(id, status);
    this.reasons.set(id, reason);
    this.unreported.push({ id, status, reason });
  }

  /** Unknown call ids, paths nothing can write, and writes to paths State already holds. */
  private refuseBadReferences(c: PlannedCall, ids: Set<string>): void {
    const unknown = c.dependsOnCalls.filter((d) => !ids.has(d));
    if (unknown.length) {
      const others = [...ids].filter((i) => i !== c.id);
      this.end(c.id, 'refused', `${DEPENDS_ON_KEY} names unknown call id(s) ${unknown.join(', ')}; calls of this reply: ${others.join(', ') || '(none)'} (State paths are written \`$.state.<name>\`)`);
      return;
    }
    for (const p of c.dependsOnPaths) {
      if (readState(this.stateNow, p) !== undefined) continue;
      if (this.calls.some((o) => o.outputPath && overlaps(o.outputPath, p))) continue;
      this.end(c.id, 'refused', `${DEPENDS_ON_KEY} names ${formatStatePath(p)}, which is not in State and no call of this reply writes it (${OUTPUT_PATH_KEY})`);
      return;
    }
    if (c.outputPath && written(this.before, c.outputPath)) this.refuseWrittenPath(c);
  }

  private refuseWrittenPath(c: PlannedCall): void {
    this.end(c.id, 'refused', `${formatStatePath(c.outputPath!)} is already written and State is write-once; choose a new ${OUTPUT_PATH_KEY} or read the value from State`);
  }

  /** Calls on a dependency cycle (a path dependency points at every call that may write it). */
  private refuseCycles(): void {
    const pending = this.pendingCalls();
    const edges = new Map<string, string[]>(pending.map((c) => [c.id, dependencyIds(c, pending)]));
    for (const cycle of findCycles(edges)) {
      for (const id of cycle) {
        if (this.status.get(id) === 'pending') this.end(id, 'refused', `dependency cycle ${[...cycle, cycle[0]].join(' -> ')}; a call can only depend on calls that do not depend on it (alternatives on one ${OUTPUT_PATH_KEY} wait for the earlier ones)`);
      }
    }
  }

  /** Why a pending call can never run now, or undefined. */
  private deadReason(c: PlannedCall): string | undefined {
    for (const d of c.dependsOnCalls) {
      const s = this.status.get(d);
      if (s === 'failed' || s === 'skipped' || s === 'refused') return `skipped: dependency ${d} ${s === 'failed' ? 'failed' : `was ${s}`}`;
    }
    for (const p of c.dependsOnPaths) {
      // While the reply streams, a writer of the path may still arrive.
      if (readState(this.stateNow, p) !== undefined || this.streaming) continue;
      const live = this.calls.some((o) => o.outputPath && overlaps(o.outputPath, p) && ['pending', 'running'].includes(this.status.get(o.id)!));
      if (!live) return `skipped: dependency ${formatStatePath(p)} was not written (every call writing it failed or was skipped)`;
    }
    if (c.outputPath && written(this.stateNow, c.outputPath)) {
      const by = [...this.writers.entries()].find(([p]) => overlaps(parseStatePath(p)!, c.outputPath!))?.[1];
      return `skipped: alternative not needed, ${formatStatePath(c.outputPath)} was already written${by ? ` by call ${by}` : ''}`;
    }
    return undefined;
  }
}

/** Calls before `c` in the reply whose output paths overlap its own: tried before it. */
function earlierAlternatives(c: PlannedCall, all: PlannedCall[]): PlannedCall[] {
  if (!c.outputPath) return [];
  const i = all.indexOf(c);
  return all.slice(0, i).filter((o) => o.outputPath && overlaps(o.outputPath, c.outputPath!));
}

/** What `c` waits for: named calls, every call that may write a path it reads, its earlier alternatives. */
function dependencyIds(c: PlannedCall, all: PlannedCall[]): string[] {
  const out = new Set(c.dependsOnCalls);
  for (const p of c.dependsOnPaths) for (const o of all) if (o.outputPath && overlaps(o.outputPath, p)) out.add(o.id);
  for (const o of earlierAlternatives(c, all)) out.add(o.id);
  return [...out];
}

/** Strongly connected components with a cycle (size > 1, or a self-edge), each in a stable order (Tarjan). */
export function findCycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(comp.reverse());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** What a model is told when its agent runs the dependencies loop (appended to the instructions). */
export const LOOP_INSTRUCTIONS = [
  '# Tool call dependencies',
  'You may return several tool calls at once. Each call may carry two extra arguments:',
  `- \`${DEPENDS_ON_KEY}\`: the ids of calls in the same reply, or State paths like \`$.state.city\`, that must succeed first; the call starts as soon as they have.`,
  `- \`${OUTPUT_PATH_KEY}\`: a State path like \`$.state.city\` where the call's result is stored. A path is written once; several calls on one path are alternatives: they are tried in order and the first success wins.`,
  'A call whose dependency failed is skipped and you are told why.',
].join('\n');

/**
 * A tool's input schema as offered to the model on the dependencies loop: the reserved keys are
 * declared, so models that honour schemas strictly can still send them (they never reach the tool).
 */
export function withLoopKeys(schema: JsonObject): JsonObject {
  if (schema.type !== undefined && schema.type !== 'object') return schema;
  const props = (schema.properties && typeof schema.properties === 'object' ? schema.properties : {}) as JsonObject;
  return {
    ...schema,
    type: 'object',
    properties: {
      ...props,
      [DEPENDS_ON_KEY]: { type: 'array', items: { type: 'string' }, description: 'call ids of this reply or State paths ($.state.x) that must succeed before this call runs' },
      [OUTPUT_PATH_KEY]: { type: 'string', pattern: PATH_RE.source, description: 'State path ($.state.x) where the result is stored (write-once)' },
    },
  };
}
