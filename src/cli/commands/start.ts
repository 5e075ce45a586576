/** `loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout S] [--on-approval-timeout …] [--actor ID] [--allow-draft]`: start a run through AgentloomClient.start and print its workflow id. */
import { defineCommand, flagString, RUN_OPTIONS } from '../args';
import { openClient } from '../client-session';

export const run = defineCommand(
  'start',
  {
    usage: 'loom start AGENT_ID [--input JSON|@file] [--registry DIR] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate] [--actor ID] [--allow-draft]',
    options: { ...RUN_OPTIONS, 'allow-draft': { type: 'boolean', help: 'let a draft root agent run.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const agentId = args.positionals[0];
    const { runOptionsFromFlags, RunError } = await import('../../operator/runs');
    // A lazy client: the agent compiles and its input is checked before any connection opens.
    const loom = await openClient(args);
    try {
      const options = runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout'));
      const actor = flagString(args, 'actor');
      // --allow-draft, as for loom run: a draft root agent may run (the workflow input carries it).
      const id = await loom.start(agentId, undefined, {
        ...options, ...(actor !== undefined ? { actor_id: actor } : {}), ...(args.flags['allow-draft'] === true ? { allow_draft: true } : {}),
        ...(flagString(args, 'input') !== undefined ? { inputText: flagString(args, 'input') } : {}),
      });
      process.stdout.write(id + '\n');
      return 0;
    } catch (err) {
      if (err instanceof RunError) { process.stderr.write(`loom start: ${err.message}\n`); return 1; }
      throw err;
    } finally {
      await loom.close();
    }
  },
);
