/** `loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout S] [--on-approval-timeout …]`: start a run and print its workflow id. */
import { defineCommand, flagString, registryDir, RUN_OPTIONS } from '../args';

export const run = defineCommand(
  'start',
  {
    usage: 'loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate]',
    options: RUN_OPTIONS,
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const agentId = args.positionals[0];
    const { prepareRun, runOptionsFromFlags, startPrepared, RunError } = await import('../runs');
    const { connect } = await import('../connect');
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
  },
);
