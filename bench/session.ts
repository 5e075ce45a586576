/**
 * `npm run bench:session`: one REAL chat session (src/workflows/session.ts) answering BENCH_MESSAGES
 * messages (default 10,000) one after another through the sessionMessage update, each sent the
 * way `loom chat` sends it (update-with-start: the first message starts the session), with a
 * zero-latency scripted agent, on an embedded dev server — nothing extrapolated. Prints the wall
 * time, ms per message, how many executions the session ran as (continue-as-new count = executions
 * - 1) and the history length of every execution (max, mean, each one), which must stay under
 * Temporal's 10,240-event warning. Baseline in the same run: the same agent run as BENCH_BASELINE
 * (default 50; 0 skips it) separate agf.react workflows one after another, ms per run — what a
 * message costs without a session around it; `ratio:` is ms per message / ms per bare run, both
 * measured in this run (with the load average beside it). Exits non-zero when any execution reached the limit.
 * BENCH_MAX_SECONDS stops sending after that long and reports the messages answered so far.
 * Not part of `npm test` (10,000 messages take tens of minutes on a shared 2-core machine; measure
 * first with BENCH_MESSAGES=1000).
 */
import { Worker } from '@temporalio/worker';
import { storeBundle } from '../src/activities/blob-store';
import type { CompiledBundle } from '../src/compiled/types';
import { sendSessionMessage } from '../src/operator/sessions';
import { HISTORY_LIMIT, benchMember, historyChain, loadAvg, startBenchEnv } from './harness';

async function main(): Promise<void> {
  const messages = Number(process.env.BENCH_MESSAGES ?? 10_000);
  const baselineRuns = Number(process.env.BENCH_BASELINE ?? 50);
  const every = Math.max(1, Number(process.env.BENCH_PROGRESS_EVERY ?? 500));
  const env = await startBenchEnv('session');
  const worker = await Worker.create({ connection: env.native, taskQueue: 'bench-session', workflowBundle: env.loomWorkflows, activities: env.createActivities(), maxCachedWorkflows: 100 });
  const running = worker.run();
  try {
    const agent = { ...benchMember('chat', 'ok'), state: { session_history: 'session' as const, max_state_tokens: 500 } };
    const bundle: CompiledBundle = { format: 'agentloom.compiled/v1', root: 'chat', agents: { chat: agent }, content_hash: 'bench-session' };
    const ref = await storeBundle(env.store, bundle);

    // Baseline: separate runs of the same agent.
    const b0 = Date.now();
    for (let i = 0; i < baselineRuns; i++) {
      await env.client.workflow.execute('agfReactWorkflow', { taskQueue: 'bench-session', workflowId: `bench-run-${i}`, args: [{ bundle: ref, agent_id: 'chat', input: `message ${i}` }] });
    }
    const baselineMs = baselineRuns > 0 ? (Date.now() - b0) / baselineRuns : NaN;

    const id = `bench-session-${Date.now()}`;
    // The session starts with the first message (update-with-start), as `loom chat` starts it.
    process.env.LOOM_TASK_QUEUE = 'bench-session';
    const session = { root: agent, sessionId: id, input: { bundle: ref, agent_id: 'chat', idle_timeout_seconds: 600 } };
    const t0 = Date.now();
    let last = { execution: 0, kept: 0 };
    // BENCH_MAX_SECONDS stops sending after that long and still prints what was measured. (Not a
    // signal: the Temporal Runtime takes SIGINT/SIGTERM to shut the worker down, stranding the update in flight.)
    const budgetMs = Number(process.env.BENCH_MAX_SECONDS ?? 0) * 1000;
    let stopped = false;
    let sent = 0;
    for (let i = 1; i <= messages && !(stopped = budgetMs > 0 && Date.now() - t0 > budgetMs); i++) {
      const r = await sendSessionMessage(env.client, session, `message ${i}`);
      last = { execution: r.execution, kept: r.kept };
      sent = i;
      if (i % every === 0) process.stderr.write(`${i} messages, execution ${r.execution}, ${((Date.now() - t0) / i).toFixed(1)} ms/message, ${((Date.now() - t0) / 1000).toFixed(0)} s, load ${loadAvg()}\n`);
    }
    const wall = (Date.now() - t0) / 1000;
    if (stopped) process.stderr.write(`stopped after ${sent} of ${messages} messages\n`);
    await env.client.workflow.getHandle(id).terminate('bench over');
    const chain = await historyChain(env.client, id);
    const lengths = chain.map((x) => x.events?.length ?? 0);
    const largest = Math.max(...lengths);
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    process.stdout.write([
      '| messages | wall s | ms/message | executions (continue-as-new) | max history per execution (events) | mean | messages given to the last turn | baseline: ms per separate run | load (1 min) |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      `| ${sent}${sent < messages ? ` (stopped; ${messages} asked)` : ''} | ${wall.toFixed(1)} | ${((wall * 1000) / sent).toFixed(1)} | ${chain.length} (${chain.length - 1}; last reply in execution ${last.execution}) | ${largest} | ${mean.toFixed(0)} | ${last.kept} | ${baselineRuns > 0 ? `${baselineMs.toFixed(1)} (${baselineRuns} runs)` : 'skipped'} | ${loadAvg()} |`,
      '',
      `history length of each execution, oldest first (the last one ends with the terminate): ${lengths.join(' ')}`,
      `history events per message: ${(lengths.reduce((a, b) => a + b, 0) / sent).toFixed(1)}`,
      `ratio: ${baselineRuns > 0 ? `${((wall * 1000) / sent / baselineMs).toFixed(2)}x` : 'n/a (no baseline)'} (ms per message / ms per bare run, this run; load ${loadAvg()})`,
    ].join('\n') + '\n');
    if (largest >= HISTORY_LIMIT) { process.stderr.write(`an execution reached ${largest} events (limit ${HISTORY_LIMIT})\n`); process.exitCode = 1; }
  } finally {
    worker.shutdown();
    await running;
    await env.close();
  }
}

main().catch((e) => { process.stderr.write(`${(e as Error).stack ?? e}\n`); process.exit(1); });
