/** `loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout S] [--on-approval-timeout …] [--actor ID] [--allow-draft]`: start a run and print its workflow id. */
import { defineCommand, flagString, registryDir, RUN_OPTIONS } from '../args';

export const run = defineCommand(
  'start',
  {
    usage: 'loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate] [--actor ID] [--allow-draft]',
    options: { ...RUN_OPTIONS, 'allow-draft': { type: 'boolean', help: 'let a draft root agent run.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const agentId = args.positionals[0];
    const { prepareRun, runOptionsFromFlags, startPrepared, RunError } = await import('../../operator/runs');
    const { connect } = await import('../../operator/connect');
    let prepared;
    try {
      const options = runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout'));
      // --allow-draft, as for loom run: a draft root agent may run (the workflow input carries it).
      const withActor = flagString(args, 'actor') !== undefined ? { ...options, actor_id: flagString(args, 'actor') } : options;
      prepared = await prepareRun(agentId, registryDir(args), flagString(args, 'input'), args.flags['allow-draft'] === true ? { ...withActor, allow_draft: true } : withActor);
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
