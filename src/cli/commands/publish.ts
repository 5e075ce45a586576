/** `loom publish AGENT_ID [--registry DIR]`: compile and store .loom/published/<agent_id>/<version>.json. */
import { defineCommand, registryDir } from '../args';

export const run = defineCommand(
  'publish',
  { usage: 'loom publish AGENT_ID [--registry DIR]', options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' } }, positionals: { min: 1, max: 1, names: ['AGENT_ID'] } },
  async (args) => {
    const id = args.positionals[0];
    const dir = registryDir(args);
    const { compileBundle, formatDiagnostic, publishBundle } = await import('../../compiler');
    const { pinMcpServers } = await import('../../mcp/discover');
    await pinMcpServers(dir); // MCP tool lists and schemas go into the published bundle
    const { bundle, diagnostics } = compileBundle(dir, id);
    for (const d of diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
    if (!bundle) return 1;
    const r = publishBundle(dir, bundle);
    for (const d of r.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
    if (!r.ok) return 1;
    process.stdout.write(`${r.unchanged ? 'already published' : 'published'} ${id}@${bundle.agents[id].version} ${bundle.content_hash} -> ${r.file}\n`);
    return 0;
  },
);
