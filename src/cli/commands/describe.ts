/**
 * `loom describe AGENT_ID [--locale L] [--json] [--registry DIR]`: the form an external UI would
 * render for the agent (the Agent Definition Specification's `ui`, `ui_hints` and `localization`): display name, short
 * description and one field per input property with its widget, label, placeholder, helper text,
 * options and file constraints, in the requested locale (falling back to `default_locale`).
 */
import { defineCommand, flagString, registryDir } from '../args';

export const run = defineCommand(
  'describe',
  {
    usage: 'loom describe AGENT_ID [--locale L] [--json] [--registry DIR]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, locale: { type: 'string', value: 'L', help: 'the locale whose labels and texts to use (e.g. fr-FR).' }, json: { type: 'boolean', help: 'print JSON instead of text.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const id = args.positionals[0];
    const dir = registryDir(args);
    const { compileBundle, formatDiagnostic, loadRegistry } = await import('../../compiler');
    const { describeForm, formatForm } = await import('../../compiler/ui');
    // The form is only worth showing for a definition that compiles (ui errors included).
    const { diagnostics } = compileBundle(dir, id);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) {
      for (const d of errors) process.stderr.write(formatDiagnostic(d) + '\n');
      return 1;
    }
    const data = loadRegistry(dir).entries.agent.get(id)?.src?.data;
    if (!data) { process.stderr.write(`loom describe: no agent ${id} in ${dir}\n`); return 1; }
    const form = describeForm(data, flagString(args, 'locale'));
    process.stdout.write((args.flags.json === true ? JSON.stringify(form, null, 2) : formatForm(form)) + '\n');
    return 0;
  },
);
