/**
 * The demo (`npm run demo [-- --verbose]`): an embedded Temporal server and worker, one run of
 * examples/demo's `trip-planner` agent (scripted model, offline) that calls tools and waits for one
 * approval, which the demo grants itself (saying so). Prints the progress, the answer (typed JSON)
 * and the run's Web UI link, then stops everything and exits 0. Quiet unless --verbose or
 * LOOM_LOG_LEVEL.
 */
import * as path from 'path';
import { parseCommand } from '../src/cli/args';
import { UsageError } from '../src/operator/errors';
import { connect, webUiLink } from '../src/operator/connect';
import { withEmbeddedWorker } from '../src/cli/embedded';
import { prepareRun, startPrepared } from '../src/operator/runs';
import { watchRun } from '../src/operator/progress';
import type { AgentRunResult, RunStatus } from '../src/shared/contract';
import { approveUpdate } from '../src/shared/definitions';

async function main(): Promise<void> {
  const usage = 'npm run demo [-- --verbose]';
  let verbose: boolean;
  try {
    verbose = parseCommand(process.argv.slice(2), { usage, options: { verbose: { type: 'boolean' } }, positionals: { min: 0, max: 0 } }).flags.verbose === true;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`demo: ${err.message}\nusage: ${usage}\n`);
    process.exitCode = 2;
    return;
  }
  const registry = path.resolve(__dirname, '..', 'examples', 'demo');
  const agentId = 'trip-planner';
  process.env.LOOM_HOME ??= path.resolve(__dirname, '..', '.loom', 'demo');
  process.env.LOOM_STORE_DIR ??= path.join(process.env.LOOM_HOME, 'store');
  const say = (s: string) => process.stdout.write(s + '\n');

  const prepared = await prepareRun(agentId, registry, undefined);
  say(`demo: agent '${agentId}' (${path.relative(process.cwd(), registry)}): ${prepared.root.meta.description ?? ''}`);
  say(`demo: input ${JSON.stringify(prepared.input)}`);
  say('demo: starting a local Temporal server and a worker (the first start takes ~10 s)…');
  const session = await connect({ embedded: withEmbeddedWorker, verbose });
  try {
    const handle = await startPrepared(session.client, prepared);
    const link = webUiLink(session.uiUrl, session.namespace, handle.workflowId);
    say(`demo: started run ${handle.workflowId}`);
    const approved = new Set<string>();
    const approve = async (s: RunStatus) => {
      for (const p of s.pending_approvals ?? []) {
        if (approved.has(p.call_id)) continue;
        approved.add(p.call_id);
        say(`demo: approving it myself, as an operator would with: npx loom approve ${handle.workflowId} ${p.call_id}`);
        await handle.executeUpdate(approveUpdate, { args: [{ call_id: p.call_id, by: 'demo' }] });
      }
    };
    const watcher = watchRun(handle, (l) => say('  ' + l), { onStatus: approve, hints: false });
    let result: AgentRunResult;
    try {
      // A failed approval stops the watcher and ends the demo instead of waiting forever.
      result = await Promise.race([handle.result() as Promise<AgentRunResult>, watcher.failure]);
    } finally {
      await watcher.stop();
    }
    say('\nanswer:');
    say(JSON.stringify(result.output, null, 2));
    say(`\ntokens used: ${result.usage.total_tokens} (${result.usage.prompt_tokens} prompt, ${result.usage.completion_tokens} completion)`);
    if (link) say(`Web UI link of this run: ${link}\n  (the server stops with the demo; browse the run later with LOOM_HOME=.loom/demo npx loom dev)`);
  } finally {
    await session.close();
    say('demo: server and worker stopped.');
  }
}

main().then(
  () => undefined,
  (err) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
