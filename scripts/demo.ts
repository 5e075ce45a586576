/**
 * The demo: an embedded Temporal server and worker, one run of examples/demo's `trip-planner`
 * agent (scripted model, offline) that calls tools and waits for one approval, which the demo
 * grants itself (saying so). Prints the answer and the run's Web UI link, then stops cleanly.
 */
import * as path from 'path';
import { connect, webUiLink } from '../src/cli/connect';
import { prepareRun, startPrepared } from '../src/cli/runs';
import { watchRun } from '../src/cli/progress';
import { QUERIES, RunStatus, UPDATES } from '../src/shared/contract';

async function main(): Promise<void> {
  const registry = path.resolve(__dirname, '..', 'examples', 'demo');
  const agentId = 'trip-planner';
  process.env.LOOM_HOME ??= path.resolve(__dirname, '..', '.loom', 'demo');
  process.env.LOOM_STORE_DIR ??= path.join(process.env.LOOM_HOME, 'store');
  const say = (s: string) => process.stdout.write(s + '\n');

  say(`demo: compiling ${agentId} from ${path.relative(process.cwd(), registry)}`);
  const prepared = await prepareRun(agentId, registry, undefined);
  say(`demo: input ${JSON.stringify(prepared.input)}`);
  say('demo: starting an embedded Temporal dev server and a worker (first start bundles the workflows, ~10 s)…');
  const session = await connect({ embedded: 'with-worker' });
  try {
    const handle = await startPrepared(session.client, prepared);
    const link = webUiLink(session.uiUrl, session.namespace, handle.workflowId);
    say(`demo: started ${handle.workflowId}`);
    const watcher = watchRun(handle, (l) => say('  ' + l));
    const approved = new Set<string>();
    const resultPromise = handle.result();
    let done = false;
    // Observe completion without leaving a rejection unhandled: a failed run is reported below.
    resultPromise.then(() => { done = true; }, () => { done = true; });
    while (!done) {
      const s = await handle.query<RunStatus>(QUERIES.status).catch(() => undefined);
      for (const p of s?.pending_approvals ?? []) {
        if (approved.has(p.call_id)) continue;
        approved.add(p.call_id);
        say(`demo: the run is waiting for a human to approve ${p.tool} ${JSON.stringify(p.arguments)}.`);
        say(`demo: approving it myself, as an operator would with: loom approve ${handle.workflowId} ${p.call_id}`);
        await handle.executeUpdate(UPDATES.approve, { args: [{ call_id: p.call_id, by: 'demo' }] });
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    const result: any = await resultPromise;
    watcher.stop();
    say('\nanswer:');
    say(JSON.stringify(result.output, null, 2));
    say(`\ntoken usage: ${JSON.stringify(result.usage)}`);
    if (link) say(`Web UI link of this run: ${link}\n  (the server stops with the demo; its SQLite file is kept: browse the run later with\n   LOOM_HOME=.loom/demo npx loom dev, then open the link)`);
  } finally {
    await session.close();
    say('demo: server and worker stopped.');
  }
}

main().catch((err) => { process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`); process.exit(1); });
