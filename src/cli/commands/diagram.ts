/**
 * `loom diagram AGENT_ID [--registry DIR] [--format mermaid|dot] [--run ID]`: print the topology of
 * a compiled agent (src/compiler/diagram.ts); with `--run`, the nodes where that run is now, those
 * it has finished and those it failed at are marked (from the run's status query), through
 * AgentloomClient.diagram.
 * `loom validate --diagram` prints one per agent of the registry.
 */
import { defineCommand, flagString, registryDir } from '../args';
import { UsageError } from '../../operator/errors';
import type { DiagramFormat, RunMarks } from '../../compiler/diagram';
import type { RunStatus } from '../../shared/contract';

export function diagramFormat(raw: string | undefined): DiagramFormat {
  if (raw === undefined || raw === 'mermaid' || raw === 'dot') return raw ?? 'mermaid';
  throw new UsageError(`--format must be mermaid or dot (got '${raw}')`);
}

/**
 * The diagram of `agentId`, or undefined (its errors written to stderr); `status` (a run of that
 * agent) marks where the run is.
 */
export async function diagramOf(dir: string, agentId: string, format: DiagramFormat, status?: RunStatus): Promise<string | undefined> {
  const { compileBundle, formatDiagnostic } = await import('../../compiler');
  const { bundleDiagram, renderDiagram, runMarks } = await import('../../compiler/diagram');
  const { bundle, diagnostics } = compileBundle(dir, agentId);
  if (!bundle) {
    for (const d of diagnostics.filter((x) => x.severity === 'error')) process.stderr.write(formatDiagnostic(d) + '\n');
    return undefined;
  }
  const marks: RunMarks | undefined = status ? runMarks(bundle.agents[bundle.root], status) : undefined;
  return renderDiagram(bundleDiagram(bundle), format, marks);
}

/** One diagram per agent of the registry at `dir` (those that compile), separated by a comment line. */
export async function printRegistryDiagrams(dir: string, format: DiagramFormat): Promise<number> {
  const { loadRegistry } = await import('../../compiler');
  await (await import('../../mcp/discover')).pinMcpServers(dir);
  let failed = 0;
  for (const id of [...loadRegistry(dir).entries.agent.keys()].sort()) {
    const text = await diagramOf(dir, id, format);
    if (text === undefined) { failed++; continue; }
    process.stdout.write(`${format === 'dot' ? '//' : '%%'} ${id}\n${text}\n`);
  }
  return failed;
}

export const run = defineCommand(
  'diagram',
  {
    usage: 'loom diagram AGENT_ID [--registry DIR] [--format mermaid|dot] [--run ID]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, format: { type: 'string', value: 'mermaid|dot', help: 'the diagram language (default mermaid).' }, run: { type: 'string', value: 'ID', help: 'mark the nodes where run ID is now, those it finished and those it failed at.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const format = diagramFormat(flagString(args, 'format'));
    const agentId = args.positionals[0];
    const runId = flagString(args, 'run');
    const { AgentMismatchError, DefinitionError } = await import('../../client/agentloom-client');
    const { withClient } = await import('../client-session');
    // Without --run the lazy client never connects: the diagram is the compiler's alone.
    return withClient(args, runId ?? agentId, { command: 'diagram' }, async (loom) => {
      try {
        process.stdout.write(await loom.diagram(agentId, { format, run: runId, registry: registryDir(args) }));
        return 0;
      } catch (err) {
        if (err instanceof AgentMismatchError) {
          process.stderr.write(`loom diagram: ${err.message} (write: loom diagram ${err.runAgent} --run ${err.runId})\n`);
          return 1;
        }
        if (!(err instanceof DefinitionError)) throw err;
        for (const d of err.diagnostics) process.stderr.write(d + '\n');
        return 1;
      }
    });
  },
);
