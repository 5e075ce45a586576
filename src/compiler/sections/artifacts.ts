/**
 * `artifacts.retention_class: ephemeral`: what an ephemeral run keeps out of durable storage and what
 * it does not (AGL050), and what it cannot keep out of the store in this agent (AGL051) — named, never
 * silent. The runtime side is src/activities/ephemeral.ts.
 */
import { asObj } from '../values';
import type { AgentBuild, Ctx } from './context';

/** AGL050: the scope of `retention_class: ephemeral`. */
const EPHEMERAL_SCOPE = 'retention_class ephemeral: a root agf.react run (loom run/start) keeps its input out of the run\'s history and deletes everything it stored (input, conversation, tool results) as it ends, keeping the final output only until it is collected; its history holds the model\'s text and registry tool call arguments only by reference, but still holds, until the Temporal namespace\'s retention deletes it: the arguments of agent-tool, delegation and escalation calls, arguments an approver sends, the errors a correction turn names, and the keys (not the values) of results a dependencies-loop call writes to State (_outputPath). Run as a member of an orchestration, as an orchestrator, or in a chat session, it only writes no artifacts';

export function lintEphemeral(ctx: Ctx, b: AgentBuild): void {
  if (asObj(b.d.artifacts).retention_class !== 'ephemeral') return;
  ctx.warn(['artifacts', 'retention_class'], 'AGL050', EPHEMERAL_SCOPE);
  const kept: string[] = [];
  if (b.readCollections.length || b.writeCollections.length) kept.push('memory collections (loom run/start refuse the run: entries outlive it)');
  const children = [
    ...(asObj(b.d.orchestration).can_delegate === true ? ['delegate_to_agent'] : []),
    ...b.toolRefs.filter((t) => t.kind === 'agent').map((t) => `agent tool ${t.tool_id}`),
    ...b.escalation.filter((r) => r.target.type === 'agent').map((r) => `escalation agent ${r.target.id}`),
  ];
  if (children.length) kept.push(`child runs (${[...new Set(children)].join(', ')}), which are not ephemeral: they keep what they store and their input and results are in this run's history`);
  if (kept.length) ctx.warn(['artifacts', 'retention_class'], 'AGL051', `retention_class ephemeral with ${kept.join('; and ')}`);
}
