/**
 * `loom diagram AGENT_ID [--registry DIR] [--format mermaid|dot]`: print the topology of a compiled
 * agent (src/compiler/diagram.ts). `loom validate --diagram` prints one per agent of the registry.
 */
import { defineCommand, flagString, registryDir, UsageError } from '../args';
import { compileBundle, formatDiagnostic, loadRegistry } from '../../compiler';
import { bundleDiagram, renderDiagram, type DiagramFormat } from '../../compiler/diagram';
import { pinMcpServers } from '../../mcp/discover';

export function diagramFormat(raw: string | undefined): DiagramFormat {
  if (raw === undefined || raw === 'mermaid' || raw === 'dot') return raw ?? 'mermaid';
  throw new UsageError(`--format must be mermaid or dot (got '${raw}')`);
}

/** The diagram of `agentId`, or undefined (its errors written to stderr). */
export function diagramOf(dir: string, agentId: string, format: DiagramFormat): string | undefined {
  const { bundle, diagnostics } = compileBundle(dir, agentId);
  if (!bundle) {
    for (const d of diagnostics.filter((x) => x.severity === 'error')) process.stderr.write(formatDiagnostic(d) + '\n');
    return undefined;
  }
  return renderDiagram(bundleDiagram(bundle), format);
}

/** One diagram per agent of the registry at `dir` (those that compile), separated by a comment line. */
export async function printRegistryDiagrams(dir: string, format: DiagramFormat): Promise<number> {
  await pinMcpServers(dir);
  let failed = 0;
  for (const id of [...loadRegistry(dir).entries.agent.keys()].sort()) {
    const text = diagramOf(dir, id, format);
    if (text === undefined) { failed++; continue; }
    process.stdout.write(`${format === 'dot' ? '//' : '%%'} ${id}\n${text}\n`);
  }
  return failed;
}

export const run = defineCommand(
  'diagram',
  {
    usage: 'loom diagram AGENT_ID [--registry DIR] [--format mermaid|dot]',
    options: { registry: { type: 'string' }, format: { type: 'string' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const format = diagramFormat(flagString(args, 'format'));
    const dir = registryDir(args);
    await pinMcpServers(dir);
    const text = diagramOf(dir, args.positionals[0], format);
    if (text === undefined) return 1;
    process.stdout.write(text);
    return 0;
  },
);
