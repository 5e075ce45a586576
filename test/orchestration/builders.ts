/**
 * Typed builders for hand-made compiled bundles (no compiler involved): scripted members and
 * orchestrators for every policy/pattern, stored with FileBlobStore in a temp LOOM_STORE_DIR.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type {
  CompiledAgent,
  CompiledBundle,
  CompiledModel,
  CompiledOrchestration,
  ExecutionPolicy,
  JsonSchema,
  JsonValue,
  OrchestrationPattern,
  ScriptedModelConfig,
  ScriptedReply,
  EscalationRule,
} from '../../src/compiled/types';
import { FileBlobStore, storeBundle } from '../../src/activities/blob-store';
import type { BlobRef } from '../../src/shared/contract';

export function scriptedModel(scripted: ScriptedModelConfig, id = 'scripted'): CompiledModel {
  return { model_id: id, version: '1.0.0', status: 'active', provider: 'scripted', scripted, supports_tools: true, supports_parallel_tool_calls: true };
}

/** A model that always answers `content` (an object/array is JSON-encoded by the runtime). */
export function answers(content: JsonValue, latency_ms = 0): ScriptedModelConfig {
  return { turns: [{ content }], latency_ms };
}

/** A model that picks its answer by a case-insensitive substring of the run input. */
export function byInput(cases: { contains: string; reply: ScriptedReply }[], fallback?: ScriptedReply, latency_ms = 0): ScriptedModelConfig {
  return {
    rules: cases.map((c) => ({ when: { input_contains: c.contains }, reply: c.reply })),
    turns: fallback ? [fallback] : undefined,
    latency_ms,
  };
}

export function failingModel(message = 'scripted model failure', status = 400): ScriptedModelConfig {
  return { turns: [{ error: { status, message } }] };
}

export function handoff(agent_name: string, message: string, context?: Record<string, JsonValue>): ScriptedReply {
  return { tool_calls: [{ name: 'handoff_to_agent', arguments: { agent_name, message, ...(context ? { context } : {}) } }] };
}

const OPEN_SCHEMA: JsonSchema = {};

export interface AgentSpec {
  id: string;
  model?: ScriptedModelConfig;
  description?: string;
  policy?: ExecutionPolicy;
  pattern?: OrchestrationPattern;
  local_agents?: { alias: string; agent_ref: string }[];
  escalation?: EscalationRule[];
  output_schema?: JsonSchema;
  input_schema?: JsonSchema;
  max_turns?: number;
  /** runtime.timeout_seconds: 60 for a react agent unless given; an orchestrator declares none unless given (its deadline fails the whole orchestration). */
  timeout_seconds?: number;
  guardrails?: Partial<CompiledAgent['guardrails']>;
  max_input_chars?: number;
  orchestration?: Partial<CompiledOrchestration>;
}

function timeoutOf(spec: AgentSpec): { timeout_seconds?: number } {
  const orchestrates = spec.pattern !== undefined || (spec.policy !== undefined && spec.policy.id !== 'agf.react');
  const t = spec.timeout_seconds ?? (orchestrates ? undefined : 60);
  return t === undefined ? {} : { timeout_seconds: t };
}

/** Object replies need an object output schema (the runtime parses JSON only then). */
function inferOutputSchema(m: ScriptedModelConfig | undefined): JsonSchema {
  const replies = [...(m?.rules ?? []).map((r) => r.reply), ...(m?.turns ?? [])];
  const objects = replies.filter((r) => r.content !== undefined && r.content !== null && typeof r.content === 'object');
  return objects.length ? { type: 'object' } : OPEN_SCHEMA;
}

export function agent(spec: AgentSpec): CompiledAgent {
  return {
    agent_id: spec.id,
    version: '1.0.0',
    spec_version: '1.0',
    status: 'active',
    meta: { name: spec.id, description: spec.description ?? `${spec.id} (test agent)` },
    instructions: `# Purpose\nYou are ${spec.id}.`,
    sections: [{ name: 'Purpose', text: `You are ${spec.id}.` }],
    runtime: {
      model: scriptedModel(spec.model ?? answers(`${spec.id} done`)),
      max_turns: spec.max_turns ?? 6,
      ...timeoutOf(spec),
      ...(spec.max_input_chars !== undefined ? { max_input_chars: spec.max_input_chars } : {}),
    },
    interface: { input: { schema: spec.input_schema ?? OPEN_SCHEMA, examples: [] }, output: { schema: spec.output_schema ?? inferOutputSchema(spec.model) } },
    tools: { tool_choice: 'auto', refs: [] },
    knowledge: { refs: [] },
    memory: { mode: 'none', read_collections: [], write_collections: [] },
    artifacts: { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'standard' },
    policies: { pii_redaction: false, allow_external_http: false, require_human_approval: false, blocked_content: [], allowed_connectors: [], audit_level: 'standard' },
    guardrails: { input: [], tool_input: [], tool_output: [], output: [], tool_calls: { require_user_confirmation_for: [], block_tools_on_input_fail: false }, ...(spec.guardrails ?? {}) },
    orchestration: {
      can_delegate: false,
      allowed_delegates: [],
      can_be_invoked_as_tool: true,
      escalation: spec.escalation ?? [],
      ...(spec.pattern ? { pattern: spec.pattern } : {}),
      ...(spec.orchestration ?? {}),
    },
    execution_policy: spec.policy ?? { id: 'agf.react', config: {} },
    local_agents: spec.local_agents ?? [],
    content_hash: 'test',
  };
}

export function bundle(root: string, agents: CompiledAgent[]): CompiledBundle {
  return { format: 'agentloom.compiled/v1', root, agents: Object.fromEntries(agents.map((a) => [a.agent_id, a])), content_hash: `test-${root}` };
}

/** local_agents where alias == agent id. */
export function locals(...ids: string[]): { alias: string; agent_ref: string }[] {
  return ids.map((id) => ({ alias: id, agent_ref: id }));
}

let storeDir: string | undefined;

/** A temp LOOM_STORE_DIR shared by the test process and its in-process worker. */
export function testStore(): FileBlobStore {
  if (!storeDir) {
    storeDir = process.env.LOOM_STORE_DIR ?? fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'orch-store-'));
    process.env.LOOM_STORE_DIR = storeDir;
  }
  return new FileBlobStore(storeDir);
}

export async function store(b: CompiledBundle): Promise<BlobRef> {
  return storeBundle(testStore(), b);
}
