/**
 * Workflow pattern (task DAG, the Agent Definition Specification's "Workflow pattern") scheduling, pure:
 * entry tasks start at once; ready tasks are dispatched by priority (higher first, then
 * declaration order) up to max_workers; retry_failed_tasks retries a failed task once; a task that
 * finally fails halts every task downstream of it while independent branches finish.
 */
import type { JsonObject, JsonValue, WorkflowTask } from '../compiled/types';

export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'halted';

export interface TaskRecord {
  task_id: string;
  agent_ref: string;
  status: TaskStatus;
  priority: number;
  attempts: number;
  started_at?: string;
  ended_at?: string;
  duration_ms?: number;
  error?: string;
  /** Why a task was halted (the failed upstream task). */
  halted_by?: string;
  output?: JsonValue;
}

export interface DagState {
  tasks: Record<string, TaskRecord>;
  order: string[];
}

export class DagScheduler {
  readonly byId: Record<string, WorkflowTask>;
  readonly state: DagState;

  constructor(readonly tasks: WorkflowTask[], readonly opts: { max_workers?: number; retry_failed_tasks: boolean }, state?: DagState) {
    this.byId = Object.fromEntries(tasks.map((t) => [t.task_id, t]));
    const problems = checkDag(tasks);
    if (problems.length) throw new Error(problems.join('; '));
    this.state = state ?? {
      order: tasks.map((t) => t.task_id),
      tasks: Object.fromEntries(tasks.map((t) => [t.task_id, { task_id: t.task_id, agent_ref: t.agent_ref, status: 'pending', priority: t.priority ?? 0, attempts: 0 } as TaskRecord])),
    };
  }

  rec(id: string): TaskRecord {
    return this.state.tasks[id];
  }

  running(): string[] {
    return this.state.order.filter((id) => this.rec(id).status === 'running');
  }

  /** Pending tasks whose dependencies all completed, by priority desc then declaration order. */
  ready(): string[] {
    const ready = this.state.order.filter((id) => this.rec(id).status === 'pending' && (this.byId[id].dependencies ?? []).every((d) => this.rec(d).status === 'completed'));
    const idx = (id: string) => this.state.order.indexOf(id);
    return ready.sort((a, b) => (this.byId[b].priority ?? 0) - (this.byId[a].priority ?? 0) || idx(a) - idx(b));
  }

  /** Tasks to dispatch now, respecting max_workers (undefined / 0 = unbounded). */
  nextBatch(): string[] {
    const max = this.opts.max_workers && this.opts.max_workers > 0 ? this.opts.max_workers : Infinity;
    const free = max - this.running().length;
    if (free <= 0) return [];
    return this.ready().slice(0, free);
  }

  start(id: string, nowIso: string): number {
    const r = this.rec(id);
    r.status = 'running';
    r.attempts += 1;
    if (!r.started_at) r.started_at = nowIso;
    return r.attempts;
  }

  complete(id: string, output: JsonValue, nowIso: string): void {
    const r = this.rec(id);
    r.status = 'completed';
    r.output = output;
    r.error = undefined;
    this.stamp(r, nowIso);
  }

  /** A failed attempt: re-queued once when retry_failed_tasks, else FAILED and downstream halted. Returns 'retry' | 'failed'. */
  fail(id: string, error: string, nowIso: string): 'retry' | 'failed' {
    const r = this.rec(id);
    r.error = error;
    if (this.opts.retry_failed_tasks && r.attempts < 2) {
      r.status = 'pending';
      return 'retry';
    }
    r.status = 'failed';
    this.stamp(r, nowIso);
    for (const d of this.downstream(id)) {
      const dr = this.rec(d);
      if (dr.status === 'pending') {
        dr.status = 'halted';
        dr.halted_by = id;
      }
    }
    return 'failed';
  }

  private stamp(r: TaskRecord, nowIso: string): void {
    r.ended_at = nowIso;
    if (r.started_at) r.duration_ms = Date.parse(nowIso) - Date.parse(r.started_at);
  }

  /** Every task that depends (transitively) on `id`. */
  downstream(id: string): string[] {
    const out: string[] = [];
    const stack = [id];
    while (stack.length) {
      const cur = stack.pop()!;
      for (const t of this.tasks) {
        if ((t.dependencies ?? []).includes(cur) && !out.includes(t.task_id)) {
          out.push(t.task_id);
          stack.push(t.task_id);
        }
      }
    }
    return this.state.order.filter((x) => out.includes(x));
  }

  finished(): boolean {
    return this.state.order.every((id) => ['completed', 'failed', 'halted'].includes(this.rec(id).status));
  }

  /** Terminal tasks / all tasks, as a percentage (0–100, one decimal). */
  progressPercent(): number {
    const n = this.state.order.length;
    if (!n) return 100;
    const done = this.state.order.filter((id) => ['completed', 'failed', 'halted'].includes(this.rec(id).status)).length;
    return Math.round((done / n) * 1000) / 10;
  }

  /** The input a task receives: the workflow input plus its direct dependencies' outputs. */
  inputFor(id: string, workflowInput: JsonValue): JsonObject {
    const t = this.byId[id];
    const deps: JsonObject = {};
    for (const d of t.dependencies ?? []) deps[d] = this.rec(d).output ?? null;
    return { task: t.description, input: workflowInput, dependencies: deps };
  }

  /** Status for the `status` query (no outputs: they can be large). */
  statusReport(): JsonObject {
    const counts: Record<TaskStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0, halted: 0 };
    for (const id of this.state.order) counts[this.rec(id).status]++;
    return {
      progress_percent: this.progressPercent(),
      counts: counts as unknown as JsonObject,
      tasks: this.state.order.map((id) => {
        const r = this.rec(id);
        const o: JsonObject = { task_id: id, agent_ref: r.agent_ref, status: r.status, priority: r.priority, attempts: r.attempts };
        if (r.started_at) o.started_at = r.started_at;
        if (r.ended_at) o.ended_at = r.ended_at;
        if (r.duration_ms !== undefined) o.duration_ms = r.duration_ms;
        if (r.error) o.error = r.error;
        if (r.halted_by) o.halted_by = r.halted_by;
        return o;
      }),
    };
  }

  /** Outputs of completed tasks keyed by task_id in declaration order. */
  outputs(): JsonObject {
    const out: JsonObject = {};
    for (const id of this.state.order) if (this.rec(id).status === 'completed') out[id] = this.rec(id).output ?? null;
    return out;
  }
}

/** Unknown dependencies, duplicate ids and cycles (hard errors). */
export function checkDag(tasks: WorkflowTask[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.task_id)) problems.push(`duplicate task_id '${t.task_id}'`);
    ids.add(t.task_id);
  }
  for (const t of tasks) for (const d of t.dependencies ?? []) if (!ids.has(d)) problems.push(`task '${t.task_id}' depends on unknown task '${d}'`);
  if (problems.length) return problems;
  const state: Record<string, 0 | 1 | 2> = {};
  const byId = Object.fromEntries(tasks.map((t) => [t.task_id, t]));
  const visit = (id: string, path: string[]): void => {
    if (state[id] === 2) return;
    if (state[id] === 1) { problems.push(`circular dependency: ${[...path.slice(path.indexOf(id)), id].join(' -> ')}`); return; }
    state[id] = 1;
    for (const d of byId[id].dependencies ?? []) visit(d, [...path, id]);
    state[id] = 2;
  };
  for (const t of tasks) visit(t.task_id, []);
  return problems;
}
