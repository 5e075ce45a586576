/**
 * `loom describe AGENT_ID [--locale L] [--json] [--registry DIR]`: the form an external UI would
 * render for the agent (the Agent Definition Specification's `ui`, `ui_hints` and `localization`): display name, short
 * description and one field per input property with its widget, label, placeholder, helper text,
 * options and file constraints, in the requested locale (falling back to `default_locale`).
 * Through AgentloomClient.describeAgent (no server is reached).
 */
import { defineCommand, flagString, registryDir } from '../args';
import { openClient } from '../client-session';

export const run = defineCommand(
  'describe',
  {
    usage: 'loom describe AGENT_ID [--locale L] [--json] [--registry DIR]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, locale: { type: 'string', value: 'L', help: 'the locale whose labels and texts to use (e.g. fr-FR).' }, json: { type: 'boolean', help: 'print JSON instead of text.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const id = args.positionals[0];
    const { DefinitionError } = await import('../../client/agentloom-client');
    const loom = await openClient(args);
    try {
      const form = await loom.describeAgent(id, { registry: registryDir(args), locale: flagString(args, 'locale') });
      const { formatForm } = await import('../../compiler/ui');
      process.stdout.write((args.flags.json === true ? JSON.stringify(form, null, 2) : formatForm(form)) + '\n');
      return 0;
    } catch (err) {
      if (!(err instanceof DefinitionError)) throw err;
      if (err.diagnostics.length) for (const d of err.diagnostics) process.stderr.write(d + '\n');
      else process.stderr.write(`loom describe: ${err.message}\n`);
      return 1;
    } finally {
      await loom.close();
    }
  },
);
