/** `loom start AGENT_ID [--input JSON|@file] [--registry DIR]`: start a run and print its workflow id. */
import { parseArgs, flagString, registryDir } from '../args';
import { connect } from '../connect';
import { prepareRun, runOptionsFromFlags, startPrepared, RunError } from '../runs';

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const agentId = args.positionals[0];
  if (!agentId) { process.stderr.write('usage: loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate]\n'); return 2; }
  let prepared;
  try {
    prepared = await prepareRun(agentId, registryDir(args), flagString(args, 'input'), runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout')));
  } catch (err) {
    if (err instanceof RunError) { process.stderr.write(`loom start: ${err.message}\n`); return 1; }
    throw err;
  }
  const session = await connect({ embedded: 'never' });
  try {
    const handle = await startPrepared(session.client, prepared);
    process.stdout.write(handle.workflowId + '\n');
    return 0;
  } finally {
    await session.close();
  }
}
