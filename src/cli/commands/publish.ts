/** `loom publish AGENT_ID [--registry DIR]`: compile and store .loom/published/<agent_id>/<version>.json. */
import { parseKnownArgs, UsageError, type ParsedArgs, registryDir } from '../args';
import { compileBundle, formatDiagnostic, publishBundle } from '../../compiler';

export async function run(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseKnownArgs(argv, { boolean: [], value: ['registry'] });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`loom publish: ${e.message}\nusage: loom publish AGENT_ID [--registry DIR]\n`);
    return 2;
  }
  const id = args.positionals[0];
  if (!id) { process.stderr.write('usage: loom publish AGENT_ID [--registry DIR]\n'); return 2; }
  const dir = registryDir(args);
  const { bundle, diagnostics } = compileBundle(dir, id);
  for (const d of diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  if (!bundle) return 1;
  const r = publishBundle(dir, bundle);
  for (const d of r.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  if (!r.ok) return 1;
  process.stdout.write(`${r.unchanged ? 'already published' : 'published'} ${id}@${bundle.agents[id].version} ${bundle.content_hash} -> ${r.file}\n`);
  return 0;
}
