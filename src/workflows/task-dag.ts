/**
 * Workflow pattern (task DAG, the Agent Definition Specification) as a Temporal workflow. Entry tasks start at once; ready
 * tasks are dispatched by priority up to max_workers; each task gets the workflow input plus its
 * direct dependencies' outputs; retry_failed_tasks retries a failed task once; a task that fails
 * halts only its dependents while independent branches finish. Operators: `status` query
 * (progress %, per-task status/times/errors), `pause` (no new task starts; in-flight tasks finish)
 * and `resume` signals; `loom list` / `loom delete` act on the runs.
 */
import { condition } from '@temporalio/workflow';
import type { JsonObject, JsonValue, WorkflowPattern } from '../compiled/types';
import type { AgentRunResult, RunAgentInput } from '../shared/contract';
import { DagScheduler } from '../orchestration/task-dag';
import { OrchestratorRun } from './orchestrator';
import { failureMessage } from './shell/failures';

type Done = { id: string; ok: true; output: JsonValue } | { id: string; ok: false; error: string; input: JsonValue };

export async function taskDagWorkflow(input: RunAgentInput): Promise<AgentRunResult> {
  const run = new OrchestratorRun(input, 'workflow');
  const agent = await run.init();
  const pattern = agent.orchestration?.pattern as WorkflowPattern | undefined;
  if (!pattern || pattern.type !== 'workflow') throw run.fail(`agent '${agent.agent_id}' declares no workflow pattern`, 'WrongPattern');
  let dag: DagScheduler;
  try {
    dag = new DagScheduler(pattern.tasks, { max_workers: pattern.max_workers, retry_failed_tasks: pattern.retry_failed_tasks });
  } catch (e) {
    throw run.fail(`invalid workflow pattern: ${(e as Error).message}`, 'InvalidWorkflow');
  }
  const report = () => {
    run.status.progress = { ...dag.statusReport(), paused: run.paused };
    run.status.step = dag.state.order.filter((id) => dag.rec(id).status === 'completed').length;
  };
  const done: Done[] = [];
  let running = 0;

  const start = (id: string) => {
    const attempt = dag.start(id, new Date().toISOString());
    const taskInput = dag.inputFor(id, input.input) as JsonValue;
    running++;
    const t = dag.byId[id];
    void run
      .runMember({ agent_id: t.agent_ref, input: taskInput, role: `task-${id}-${attempt}` })
      .then(
        (res) => { running--; done.push({ id, ok: true, output: res.output }); },
        (err) => { running--; done.push({ id, ok: false, error: failureMessage(err), input: taskInput }); },
      );
  };

  report();
  for (;;) {
    if (!run.paused) for (const id of dag.nextBatch()) start(id);
    report();
    if (running === 0 && done.length === 0) {
      if (dag.finished()) break;
      // Nothing in flight and nothing dispatchable: paused (wait for resume) or stuck (cannot happen for a valid DAG).
      if (run.paused) { await condition(() => !run.paused); continue; }
      break;
    }
    await condition(() => done.length > 0 || (!run.paused && dag.nextBatch().length > 0));
    while (done.length) {
      const d = done.shift()!;
      const now = new Date().toISOString();
      if (d.ok) { dag.complete(d.id, d.output, now); continue; }
      const verdict = dag.fail(d.id, d.error, now);
      if (verdict === 'retry') { run.warn(`task '${d.id}' failed (${d.error}); retrying once`); continue; }
      const esc = await run.escalate({ on: 'node_failure', node: d.id }, { error: d.error, input: d.input });
      if (esc.handled && 'final' in esc) { report(); return run.complete(esc.final.output); }
      if (esc.handled && 'output' in esc) {
        // A human supplied the task's output: it counts as completed and its dependents run.
        const r = dag.rec(d.id);
        r.status = 'completed';
        r.output = esc.output;
        for (const x of dag.state.order) {
          const xr = dag.rec(x);
          if (xr.status === 'halted' && xr.halted_by === d.id) { xr.status = 'pending'; xr.halted_by = undefined; }
        }
        continue;
      }
      run.warn(`task '${d.id}' failed: ${d.error}; halted: ${dag.downstream(d.id).join(', ') || 'nothing downstream'}`);
    }
  }
  report();
  const output: JsonObject = dag.outputs();
  return run.complete(output);
}
