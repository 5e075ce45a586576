/**
 * A small typed builder for compiled bundles used by the runtime tests (the compiler is written
 * concurrently). Bundles are stored with FileBlobStore in a temp LOOM_STORE_DIR.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type {
  CompiledAgent,
  CompiledBundle,
  CompiledModel,
  CompiledTool,
  JsonSchema,
  ReactConfig,
  ScriptedModelConfig,
} from '../../src/compiled/types';
import type { BlobRef } from '../../src/shared/contract';
import { BUILTIN_SCHEMAS } from '../helpers/builtin-schemas';
import { FileBlobStore, storeBundle } from '../../src/activities/blob-store';

export function scriptedModel(scripted: ScriptedModelConfig, model_id = 'scripted-test'): CompiledModel {
  return { model_id, version: '1.0.0', status: 'active', provider: 'scripted', scripted, supports_tools: true };
}

export function builtinTool(name: string, over: Partial<CompiledTool> = {}): CompiledTool {
  return {
    tool_id: over.tool_id ?? name,
    version: '1.0.0',
    status: 'active',
    description: `builtin ${name}`,
    kind: 'builtin',
    input_schema: BUILTIN_SCHEMAS[name] ?? { type: 'object' },
    approval_required: false,
    sensitive_fields: [],
    side_effects: false,
    builtin: { name },
    ...over,
  };
}

export interface AgentSpec {
  agent_id?: string;
  model: CompiledModel;
  fallback_model?: CompiledModel;
  tools?: CompiledTool[];
  instructions?: string;
  output_schema?: JsonSchema;
  react?: ReactConfig;
  runtime?: Partial<CompiledAgent['runtime']>;
  require_human_approval?: boolean;
  require_user_confirmation_for?: string[];
  tool_choice?: 'none' | 'auto' | 'required';
}

export function agent(spec: AgentSpec): CompiledAgent {
  const id = spec.agent_id ?? 'test-agent';
  return {
    agent_id: id,
    version: '1.0.0',
    spec_version: '1.0',
    status: 'active',
    meta: { name: id },
    instructions: spec.instructions ?? '# Purpose\nAnswer the question.',
    sections: [{ name: 'Purpose', text: 'Answer the question.' }],
    runtime: { model: spec.model, fallback_model: spec.fallback_model, ...(spec.runtime ?? {}) },
    interface: { input: { schema: {}, examples: [] }, output: { schema: spec.output_schema ?? {} } },
    tools: { tool_choice: spec.tool_choice ?? 'auto', refs: spec.tools ?? [] },
    knowledge: { refs: [] },
    memory: { mode: 'none', read_collections: [], write_collections: [] },
    artifacts: { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'standard' },
    policies: {
      pii_redaction: false,
      allow_external_http: false,
      require_human_approval: spec.require_human_approval ?? false,
      blocked_content: [],
      allowed_connectors: [],
      audit_level: 'standard',
    },
    guardrails: {
      input: [],
      tool_input: [],
      tool_output: [],
      output: [],
      tool_calls: { require_user_confirmation_for: spec.require_user_confirmation_for ?? [], block_tools_on_input_fail: false },
    },
    orchestration: { can_delegate: false, allowed_delegates: [], can_be_invoked_as_tool: false, escalation: [] },
    execution_policy: { id: 'agf.react', config: spec.react ?? {} },
    local_agents: [],
    content_hash: 'test',
  };
}

export function bundleOf(root: CompiledAgent, ...others: CompiledAgent[]): CompiledBundle {
  const agents: Record<string, CompiledAgent> = {};
  for (const a of [root, ...others]) agents[a.agent_id] = a;
  return { format: 'agentloom.compiled/v1', root: root.agent_id, agents, content_hash: 'test' };
}

let storeDir: string | undefined;
/** The temp store shared by the test worker's activities and the test (LOOM_STORE_DIR). */
export function testStore(): FileBlobStore {
  if (!storeDir) {
    storeDir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'store-'));
    process.env.LOOM_STORE_DIR = storeDir;
  }
  return new FileBlobStore(storeDir);
}

export async function storeTestBundle(b: CompiledBundle): Promise<BlobRef> {
  return storeBundle(testStore(), b);
}
