/**
 * `loom run AGENT_ID [--input JSON|@file] [--registry DIR] [--json]`: compile, check the input,
 * start the run, show live progress (turn, tool calls, approvals awaited) and print the output.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { parseArgs, flagString, registryDir } from '../args';
import { connect, webUiLink } from '../connect';
import { prepareRun, runOptionsFromFlags, startPrepared, RunError } from '../runs';
import { watchRun, describeFailure } from '../progress';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['json']);
  const agentId = args.positionals[0];
  const json = args.flags.json === true;
  if (!agentId) {
    process.stderr.write('usage: loom run AGENT_ID [--input JSON|@file] [--registry DIR] [--json] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate]\n');
    return 2;
  }
  let prepared;
  try {
    prepared = await prepareRun(agentId, registryDir(args), flagString(args, 'input'), runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout')));
  } catch (err) {
    if (err instanceof RunError) { process.stderr.write(`loom run: ${err.message}\n`); return 1; }
    throw err;
  }
  const say = (line: string) => { if (!json) process.stderr.write(line + '\n'); };
  if (prepared.inputFromExample) say(`input (first of interface.input.examples): ${JSON.stringify(prepared.input)}`);
  const session = await connect({ embedded: 'with-worker' });
  try {
    if (session.embedded) say(`embedded Temporal server at ${session.address}${session.uiUrl ? `, Web UI ${session.uiUrl}` : ''}`);
    const handle = await startPrepared(session.client, prepared);
    const link = webUiLink(session.uiUrl, session.namespace, handle.workflowId);
    say(`started ${handle.workflowId}${link ? `\n  ${link}` : ''}`);
    const watcher = json ? undefined : watchRun(handle, say);
    try {
      const result = await handle.result();
      watcher?.stop();
      for (const w of result?.warnings ?? []) say(`warning: ${w}`);
      process.stdout.write(JSON.stringify(result?.output ?? result, null, json ? 0 : 2) + '\n');
      if (link) say(`history: ${link}`);
      return 0;
    } catch (err) {
      watcher?.stop();
      if (err instanceof WorkflowFailedError) {
        process.stderr.write(`loom run: ${handle.workflowId} failed: ${describeFailure(err)}\n`);
        if (link) process.stderr.write(`history: ${link}\n`);
        return 1;
      }
      throw err;
    }
  } finally {
    await session.close();
  }
}
