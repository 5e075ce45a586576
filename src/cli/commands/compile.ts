/** `loom compile AGENT_ID [--registry DIR] [--out FILE]`: print (or write) the canonical JSON bundle. */
import * as fs from 'fs';
import { parseKnownArgs, UsageError, type ParsedArgs, flagString, registryDir } from '../args';
import { canonicalJson, compileBundle, formatDiagnostic } from '../../compiler';

export async function run(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseKnownArgs(argv, { boolean: [], value: ['registry', 'out'] });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`loom compile: ${e.message}\nusage: loom compile AGENT_ID [--registry DIR] [--out FILE]\n`);
    return 2;
  }
  const id = args.positionals[0];
  if (!id) { process.stderr.write('usage: loom compile AGENT_ID [--registry DIR] [--out FILE]\n'); return 2; }
  const { bundle, diagnostics } = compileBundle(registryDir(args), id);
  for (const d of diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  if (!bundle) return 1;
  const text = canonicalJson(bundle) + '\n';
  const out = flagString(args, 'out');
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(text);
  return 0;
}
