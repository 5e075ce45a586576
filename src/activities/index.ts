/**
 * All Agentloom activities, for the worker: `createActivities(deps?)`.
 */
import { openBlobStore, BlobStore } from './blob-store';
import { BundleCache, agentView } from './agent-loader';
import { MessageStore } from './message-store';
import { createModelActivity, scriptedProvider } from './model';
import type { Provider } from './provider';
import { nativeProviders } from './providers';
import { createReactToolActivities, ExternalToolExecutor } from './react-tools';
import type { BlobRef } from '../shared/contract';
import { createTransformActivities } from './transforms';
import { createGuardrailActivities } from './guardrails';
import { createPolicyActivities } from './governance';
import { createAuditActivities } from './audit';
import { createEvidenceActivities } from './evidence';
import { createStrategyWorkspaceActivities } from './strategy-workspace';
import { createExecutionStateActivities } from './execution-state';
import { createTranscriptActivities } from './transcript';
import { createGraphMessageActivities } from './graph-messages';
import { createStrategySelectorActivities } from './strategy-selector';
import { createSessionActivities } from './session-turns';
import { createMemoryActivities } from './memory';
import { createArtifactActivities } from './artifacts';
import { createEphemeralActivities, EphemeralTrackingStore } from './ephemeral';
import type { AgentView } from '../runtime/agent-view';
import type { ContentClassifier } from '../governance/content';
import { createMcpToolExecutor } from './mcp-tools';
import { McpPool } from '../mcp/pool';
import { ApplicationFailure } from '@temporalio/activity';
import { lifecycleRefusal, memberRefusal } from '../governance/lifecycle';

export interface ActivityDeps {
  store?: BlobStore;
  /** Extra or replacement model providers by name (`scripted`, `openai` and the native ones in providers/ are built in). */
  providers?: Record<string, Provider>;
  /** Executes builtin/http tools (defaults to src/activities/tools.ts when it exports one). */
  toolExecutor?: ExternalToolExecutor;
  /** The worker's MCP sessions (`kind: mcp` tools); one per worker by default. */
  mcpPool?: McpPool;
  /** Replaces the builtin policies.blocked_content classifier (src/governance/content.ts). */
  contentClassifier?: ContentClassifier;
}

function optionalModule(name: string): Record<string, unknown> | undefined {
  try {
    return require(name) as Record<string, unknown>;
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes(name.replace('./', ''))) return undefined;
    throw e;
  }
}

export function createActivities(deps: ActivityDeps = {}) {
  const store = deps.store ?? openBlobStore();
  const bundles = new BundleCache(store);
  // Activities of an ephemeral run list what they create, for the run's end to delete.
  const tracked = new EphemeralTrackingStore(store);
  const messages = new MessageStore(tracked);
  const providers: Record<string, Provider> = { scripted: scriptedProvider };
  const openaiMod = optionalModule('./openai');
  // src/activities/openai.ts (written separately) plugs in as a Provider: (ProviderRequest) => ProviderReply.
  const openaiFn = openaiMod?.openaiProvider ?? openaiMod?.callOpenAI;
  if (typeof openaiFn === 'function') providers.openai = openaiFn as Provider;
  Object.assign(providers, nativeProviders());
  Object.assign(providers, deps.providers ?? {});
  const toolsMod = optionalModule('./tools');
  const baseExecutor = deps.toolExecutor ?? (toolsMod && typeof toolsMod.executeTool === 'function' ? (toolsMod.executeTool as ExternalToolExecutor) : undefined);
  const mcpExecutor = createMcpToolExecutor(deps.mcpPool ?? new McpPool());
  const executor: ExternalToolExecutor = (ctx) => {
    if (ctx.tool.kind === 'mcp') return mcpExecutor(ctx);
    if (baseExecutor) return baseExecutor(ctx);
    throw new Error(`no builtin or http executor in this worker for tool ${ctx.tool.tool_id} (${ctx.tool.kind})`);
  };
  const otherToolActivities =
    toolsMod && typeof toolsMod.createToolActivities === 'function'
      ? ((toolsMod.createToolActivities as (d: unknown) => Record<string, unknown>)({ store: tracked }) ?? {})
      : {};

  return {
    ...otherToolActivities,
    /** `root`: a root run's load checks the lifecycle (draft needs allow_draft, disabled never runs); any other load refuses a disabled member. */
    async loadAgent(inp: { bundle: BlobRef; agent_id: string; root?: { allow_draft?: boolean } }): Promise<AgentView> {
      const { bundle, agent } = await bundles.agent(inp.bundle, inp.agent_id);
      const refusal = inp.root ? lifecycleRefusal(agent, inp.root) : memberRefusal(agent);
      if (refusal) throw ApplicationFailure.nonRetryable(refusal, 'AgentNotRunnable');
      return agentView(bundle, agent);
    },
    modelTurn: createModelActivity({ bundles, messages, providers }),
    ...createReactToolActivities({ bundles, messages, executor }),
    ...createTransformActivities(),
    ...createGuardrailActivities({ bundles, messages, models: providers }),
    ...createPolicyActivities({ bundles, messages, classifier: deps.contentClassifier }),
    ...createAuditActivities({ bundles, messages }),
    ...createEvidenceActivities(),
    ...createStrategyWorkspaceActivities(),
    ...createExecutionStateActivities({ messages }),
    ...createTranscriptActivities({ bundles, messages }),
    ...createGraphMessageActivities({ bundles, messages }),
    ...createStrategySelectorActivities({ bundles, providers }),
    ...createSessionActivities({ bundles, messages }),
    ...createMemoryActivities({ bundles, store }),
    ...createArtifactActivities({ store, bundles, messages }),
    ...createEphemeralActivities({ store }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
