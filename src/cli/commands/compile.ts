/** `loom compile AGENT_ID [--registry DIR] [--out FILE]`: print (or write) the canonical JSON bundle. */
import * as fs from 'fs';
import { defineCommand, flagString, registryDir } from '../args';

export const run = defineCommand(
  'compile',
  {
    usage: 'loom compile AGENT_ID [--registry DIR] [--out FILE]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, out: { type: 'string', value: 'FILE', help: 'write the bundle to FILE instead of stdout.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const id = args.positionals[0];
    const { canonicalJson, compileBundle, formatDiagnostic } = await import('../../compiler');
    const { pinMcpServers } = await import('../../mcp/discover');
    await pinMcpServers(registryDir(args)); // MCP tool lists and schemas go into the bundle
    const { bundle, diagnostics } = compileBundle(registryDir(args), id);
    for (const d of diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
    if (!bundle) return 1;
    const text = canonicalJson(bundle) + '\n';
    const out = flagString(args, 'out');
    if (out) fs.writeFileSync(out, text);
    else process.stdout.write(text);
    return 0;
  },
);
