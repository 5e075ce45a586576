/**
 * The compiled payload: the only thing the runtime ever executes (the Agent Definition Specification, "Overview").
 *
 * This file is the contract between the compiler (src/compiler), the runtime workflows
 * (src/workflows) and the activities (src/activities). It holds types only, so workflow code
 * may import it. Field names follow the specifications exactly; everything editorial (`ui`, `notes`,
 * `release`, `localization`, `evaluation`) is stripped by the compiler and never appears here.
 *
 * Secrets never appear in a payload: only env-variable names (`api_key_env`, `value_env`) and
 * secret-store names (`credentials_ref`).
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };
export type JsonSchema = JsonObject;

export type Status = 'draft' | 'active' | 'deprecated' | 'disabled';

// ---------------------------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------------------------

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  /** Path of the file as given to the compiler (relative to the registry root when possible). */
  file: string;
  /** 1-based line and column from the YAML source positions (1:1 when the file has none). */
  line: number;
  column: number;
  severity: Severity;
  /** Stable rule code, e.g. `AGF001`. See docs/diagnostics.md. */
  code: string;
  /** Dotted field path inside the front matter, e.g. `runtime.model` (empty for file-level). */
  field: string;
  /** What is wrong and what to write instead. */
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

/** One scripted tool call: the deterministic stand-in for a model's function call. */
export interface ScriptedToolCall {
  /** Tool id as advertised to the model (a tool_id, an agent_id for agent tools, or `handoff_to_agent`). */
  name: string;
  arguments: JsonObject;
  /** Optional fixed call id; the runtime derives one from the turn and index otherwise. */
  id?: string;
}

/** One scripted reply. Exactly one of `content` / `tool_calls` / `error` is normally set. */
export interface ScriptedReply {
  /**
   * Final text. A string is sent as-is; an object/array is JSON-encoded. `{{input.x}}`,
   * `{{last_tool_result}}`, `{{tool_results.<tool>}}` (latest result of that tool) and
   * `{{message}}` templates are expanded by the runtime.
   */
  content?: JsonValue;
  tool_calls?: ScriptedToolCall[];
  /** Simulate a provider failure: `{status: 429|500|401…, message, retry_after_seconds?}`. */
  error?: { status: number; message: string; retry_after_seconds?: number };
  /** Token usage to report for this reply (defaults derived from text length). */
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** A rule: when the condition holds for the current conversation, reply with `reply`. */
export interface ScriptedRule {
  when: {
    /** Case-insensitive substring of the latest user/tool message. */
    last_message_contains?: string;
    /** Case-insensitive substring of the first user message (the run input). */
    input_contains?: string;
    /** Matches when this many assistant turns have already happened (0-based turn index). */
    turn?: number;
  };
  reply: ScriptedReply;
}

export interface ScriptedModelConfig {
  /** Checked first, top to bottom; the first matching rule answers. */
  rules?: ScriptedRule[];
  /** Otherwise the reply at index = turn number (0-based) answers. */
  turns?: ScriptedReply[];
  /** What happens after the last entry of `turns`: repeat the last one (default) or cycle. */
  after_last?: 'repeat_last' | 'cycle';
  /** Optional simulated latency per call, milliseconds (0 by default). */
  latency_ms?: number;
}

export interface OpenAIModelConfig {
  /** Any OpenAI-compatible endpoint, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  base_url: string;
  /** The provider's own model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** Name of the environment variable that holds the API key. Never the key itself. */
  api_key_env?: string;
  /** Extra headers whose values come from env variables: `{ "OpenAI-Organization": "OPENAI_ORG" }`. */
  header_envs?: Record<string, string>;
  request_timeout_seconds?: number;
}

/**
 * The fields a native provider's block shares with `openai`'s; `base_url` is optional there (the
 * vendor's own endpoint is the default). The key is only ever named by an env variable.
 */
export interface ProviderEndpointConfig {
  base_url?: string;
  /** Name of the environment variable that holds the API key. Never the key itself. */
  api_key_env?: string;
  header_envs?: Record<string, string>;
  request_timeout_seconds?: number;
}

/** `provider: anthropic`: the Messages API (`x-api-key`, `anthropic-version`). */
export interface AnthropicModelConfig extends ProviderEndpointConfig {
  model: string;
}

/** `provider: google`: the Gemini API (`x-goog-api-key`). */
export interface GoogleModelConfig extends ProviderEndpointConfig {
  model: string;
}

/**
 * `provider: bedrock`: the Bedrock Converse API, signed with SigV4 from the access key env
 * variables, or a Bedrock API key (`api_key_env`, a bearer token). `region` is the AWS region,
 * and the model's `region` for policies.data_residency when the file gives none.
 */
export interface BedrockModelConfig extends ProviderEndpointConfig {
  model: string;
  region: string;
  access_key_id_env?: string;
  secret_access_key_env?: string;
  session_token_env?: string;
}

/** `provider: azure`: Azure OpenAI chat completions of one deployment (`api-key`). */
export interface AzureModelConfig extends ProviderEndpointConfig {
  deployment: string;
  /** `https://<resource_name>.openai.azure.com/openai`, unless `base_url` is given. */
  resource_name?: string;
  api_version?: string;
}

/** `provider: ollama`: an Ollama server's /api/chat (default `http://127.0.0.1:11434`). */
export interface OllamaModelConfig extends ProviderEndpointConfig {
  model: string;
}

/** Every provider a model file may name; each but `scripted` has a block of the same name. */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'google', 'bedrock', 'azure', 'ollama', 'scripted'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface CompiledModel {
  model_id: string;
  version: string;
  status: Status;
  provider: ModelProvider;
  openai?: OpenAIModelConfig;
  anthropic?: AnthropicModelConfig;
  google?: GoogleModelConfig;
  bedrock?: BedrockModelConfig;
  azure?: AzureModelConfig;
  ollama?: OllamaModelConfig;
  scripted?: ScriptedModelConfig;
  /** Model-level defaults and platform limits. */
  context_window_tokens?: number;
  max_output_tokens?: number;
  supports_tools?: boolean;
  supports_parallel_tool_calls?: boolean;
  /**
   * The endpoint accepts a JSON response format (`response_format` json_schema for openai). Default
   * true; false for endpoints that reject it: the output schema is then asked for only by the
   * correction turn.
   */
  supports_structured_output?: boolean;
  /** Allowed temperature range for this model (platform rule, enforced by the compiler). */
  temperature_range?: [number, number];
  /** Where the endpoint is hosted (`eu`, `eu-west-1`...): checked against policies.data_residency. */
  region?: string;
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

export interface HttpToolConfig {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** URL template; `{name}` placeholders are filled from the (URL-encoded) arguments. */
  url: string;
  /** Header name -> env var name holding its value (secrets), or a literal `{ value }`. */
  headers?: Record<string, { value_env?: string; value?: string }>;
  /** GET: arguments go to the query string; otherwise the JSON body (default). */
  body?: 'json' | 'none';
  timeout_seconds?: number;
  /** Hosts this tool may reach even when `policies.allow_external_http` is false. */
  allowed_hosts?: string[];
  /** Private/loopback addresses are refused unless this is true. */
  allow_private_network?: boolean;
}

export interface CompiledTool {
  tool_id: string;
  version: string;
  status: Status;
  description: string;
  kind: 'builtin' | 'http' | 'agent' | 'mcp' | 'code';
  input_schema: JsonSchema;
  output_schema?: JsonSchema;
  /** Effective (registry default tightened by the agent's override). */
  approval_required: boolean;
  /** Effective limit; undefined = unlimited. */
  max_calls_per_run?: number;
  /** Argument/result fields marked `sensitive: true` (dotted paths), redacted in logs/summaries. */
  sensitive_fields: string[];
  /** Whether the tool changes the world (writes, sends); drives lint rules and idempotency keys. */
  side_effects: boolean;
  /** `config`: the builtin's own settings (e.g. the `shell` builtin's allowed_commands). */
  builtin?: { name: string; config?: JsonObject };
  http?: HttpToolConfig;
  /** Agent-as-tool: the agent_id run as a child workflow. */
  agent?: { agent_id: string };
  /** A tool written in code (defineTool): the name the worker registers it under. */
  code?: { name: string };
  /** The named integration connector the tool reaches (checked against policies.allowed_connectors). */
  connector?: string;
  /** Where the tool's backend is hosted: checked against policies.data_residency. */
  region?: string;
  /** One tool of an MCP server (`kind: mcp`), its schema pinned at compile time. */
  mcp?: McpToolConfig;
}

/** How a worker reaches an MCP server: stdio `command` (+ args, env NAMES) or streamable HTTP `url`. */
export interface McpServerConfig {
  command?: string;
  args?: string[];
  /** Names of env vars copied from the worker's environment into the server process (never values). */
  env?: string[];
  cwd?: string;
  url?: string;
  /** Header name -> env var name holding its value (e.g. `Authorization: { value_env: MCP_TOKEN }`). */
  headers?: Record<string, { value_env?: string; value?: string }>;
  timeout_seconds?: number;
  /** For `url`: hosts reachable when the agent's `policies.allow_external_http` is false (as http tools). */
  allowed_hosts?: string[];
  /** For `url`: allow private, loopback and link-local addresses (as http tools). */
  allow_private_network?: boolean;
}

export interface McpToolConfig {
  /** The registry tool definition (the server) this tool came from. */
  server_id: string;
  server: McpServerConfig;
  /** The tool's name on the MCP server (the compiled tool_id is `<server_id>__<name>`). */
  name: string;
  /** sha256 of the canonical `{ name, inputSchema }` the server listed when it was pinned. */
  schema_hash: string;
}

/** The Agent Definition Specification's "Tool manifest compilation rules": emitted for agents with can_be_invoked_as_tool. */
export interface ToolManifest {
  name: string;
  description: string;
  intents: string[];
  examples: string[];
  parameters: JsonSchema;
  returns: JsonSchema;
}

// ---------------------------------------------------------------------------------------------
// Knowledge, collections, guardrails, roles
// ---------------------------------------------------------------------------------------------

export interface CompiledKnowledge {
  kb_id: string;
  version: string;
  status: Status;
  description?: string;
  required: boolean;
  citations_required: boolean;
  retrieval?: { search_mode?: 'keyword' | 'semantic' | 'hybrid'; trigger?: string; grounding_required?: boolean; max_chunks?: number };
  /** Backend configuration (e.g. `{ type: 'inline', documents: [...] }` or `{ type: 'files', path }`). */
  backend: JsonObject;
}

export interface CompiledCollection {
  collection_id: string;
  version: string;
  status: Status;
  scope: 'session' | 'project' | 'user';
  backend: JsonObject & { type: string; credentials_ref?: string };
  writeback: { enabled: boolean; strategy?: string; approval_required?: boolean };
}

export type GuardrailResultType = 'score' | 'transform' | 'annotate' | 'enrich';
export type GuardrailPosition = 'input' | 'tool_input' | 'tool_output' | 'output';

export interface CompiledGuardrail {
  ref: string;
  version: string;
  status: Status;
  result_type: GuardrailResultType;
  /** `builtin` checks run in the worker (e.g. `pii-regex`, `keyword-score`, `json-schema`). */
  provider: { type: string; name?: string; config?: JsonObject; credentials_ref?: string };
  severity_threshold?: number;
  on_fail: 'block' | 'warn' | 'log' | 'escalate' | 'apply' | 'reject' | 'skip' | 'fail_closed' | 'retry' | 'redact';
}

export interface CompiledRole {
  role_id: string;
  version: string;
  status: Status;
  /** tool_id -> ceilings the role grants. */
  tools: Record<string, { max_calls_per_run?: number; approval_required?: boolean }>;
}

// ---------------------------------------------------------------------------------------------
// Execution policies (the Agent Format) and orchestration patterns (the Agent Definition Specification, fuseraft, the Step Execution Modes)
// ---------------------------------------------------------------------------------------------

export interface PolicyStep {
  agent: string;
  input_mapping?: Record<string, string>;
}

export type OutputFrom =
  | string
  | { agent?: string; strategy?: 'last' | 'merge' | 'first'; custom_transform?: string; description?: string };

/** A single ConditionGroup: field path -> literal (equality) or operator object. AND within. */
export interface ConditionGroup {
  args_match: Record<string, JsonValue>;
}
export type Condition = ConditionGroup | ConditionGroup[];

export interface ReactConfig {
  instructions?: string;
  provider?: string;
  model?: string;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  max_output_tokens?: number;
  stop_sequences?: string[];
  tool_choice?: 'none' | 'auto' | 'required';
  user_prompt_template?: string;
  max_steps?: number;
}
export interface SequentialConfig { steps: PolicyStep[]; output_from?: OutputFrom }
export interface ParallelConfig { agents: PolicyStep[]; output_from?: OutputFrom }
export interface LoopConfig { steps: PolicyStep[]; max_iterations: number; exit_condition?: Condition; output_from?: OutputFrom }
export interface BatchConfig { agent: string; input_mapping: Record<string, string>; max_batch_count?: number; max_concurrency?: number }
export interface ConditionalRoute { when: Condition; agent: string; input_mapping?: Record<string, string> }
export interface ConditionalConfig { routes: ConditionalRoute[]; default_agent?: string }

export type ExecutionPolicy =
  | { id: 'agf.react'; config: ReactConfig }
  | { id: 'agf.sequential'; config: SequentialConfig }
  | { id: 'agf.parallel'; config: ParallelConfig }
  | { id: 'agf.loop'; config: LoopConfig }
  | { id: 'agf.batch'; config: BatchConfig }
  | { id: 'agf.conditional'; config: ConditionalConfig }
  | { id: `x-${string}`; config: JsonObject };

export interface GraphPattern {
  type: 'graph';
  execution_timeout: number;
  max_node_executions?: number;
  node_timeout: number;
  reset_on_revisit: boolean;
  nodes: { id: string; agent_ref: string }[];
  /** `on: error`: an error edge, traversed only when `from` fails (the Agent Definition Specification's "explicit error edges"). */
  edges: { from: string; to: string; condition?: string; on?: 'error' }[];
}
export interface SwarmPattern {
  type: 'swarm';
  max_handoffs: number;
  max_iterations: number;
  execution_timeout: number;
  node_timeout: number;
  repetitive_handoff_detection_window: number;
  repetitive_handoff_min_unique_agents: number;
  agents: { ref: string }[];
}
export interface WorkflowTask {
  task_id: string;
  agent_ref: string;
  description: string;
  priority: number;
  dependencies: string[];
}
export interface WorkflowPattern {
  type: 'workflow';
  max_workers?: number;
  retry_failed_tasks: boolean;
  tasks: WorkflowTask[];
}
/** A step of the Step Execution Modes as written (JSON examples compile unchanged). */
export interface StepDefinition {
  name: string;
  agent: { ByName: string };
  prompt_template?: string;
  mode?: 'Sequential' | 'FanOut' | 'Collect' | { Conditional: { condition: string } } | { Loop: { max_iterations: number; until?: string } };
  output_var?: string;
}
export interface StepsPattern { type: 'steps'; steps: StepDefinition[] }
/**
 * fuseraft's strategies (`orchestration.pattern: {type: strategies, …}`): fuseraft's orchestration
 * block verbatim in `config` (`Selection`, `Termination?`, `Contracts?`, PascalCase as printed) and
 * each agent name of the block with the agent it runs (src/compiler/strategies.ts).
 */
export interface StrategiesPattern {
  type: 'strategies';
  agents: { name: string; agent_id: string }[];
  config: JsonObject;
}
/** fuseraft's strategy names as pattern types (fuseraft's strategies run as `type: strategies`): compiled and carried, not executed. */
export interface ReservedPattern { type: string; [k: string]: JsonValue | undefined }

export type OrchestrationPattern = GraphPattern | SwarmPattern | WorkflowPattern | StepsPattern | StrategiesPattern | ReservedPattern;

export interface EscalationRule {
  on: 'guardrail' | 'model_decision' | 'node_failure' | 'timeout';
  guardrail?: string;
  node?: string;
  target: { type: 'human_queue' | 'agent'; id: string };
}

export interface CompiledOrchestration {
  can_delegate: boolean;
  allowed_delegates: string[];
  can_be_invoked_as_tool: boolean;
  escalation: EscalationRule[];
  pattern?: OrchestrationPattern;
}

// ---------------------------------------------------------------------------------------------
// The agent
// ---------------------------------------------------------------------------------------------

export interface BodySection {
  /** Heading as written, e.g. `Purpose`, `System behavior`. */
  name: string;
  /** Verbatim Markdown under the heading (without the heading line). */
  text: string;
}

export interface CompiledRuntime {
  model: CompiledModel;
  fallback_model?: CompiledModel;
  reasoning_effort?: 'low' | 'medium' | 'high';
  temperature?: number;
  top_p?: number;
  timeout_seconds?: number;
  max_input_chars?: number;
  max_output_tokens?: number;
  max_turns?: number;
  max_tool_calls?: number;
  /**
   * The execution loop of the Execution Loop specification for agf.react: `turn` (default) runs every call of a model reply and
   * then asks the model again; `dependencies` honours `_dependsOn`/`_outputPath` in call arguments
   * (src/runtime/execution-loop.ts).
   */
  execution_loop?: 'turn' | 'dependencies';
  retry_policy?: { max_attempts: number; backoff_seconds: number };
}

export interface CompiledPolicies {
  pii_redaction: boolean;
  allow_external_http: boolean;
  require_human_approval: boolean;
  blocked_content: string[];
  allowed_connectors: string[];
  data_residency?: string;
  audit_level: 'none' | 'standard' | 'full';
  /**
   * Set when pii_redaction or blocked_content is declared: the react loop runs the policy pass
   * (src/workflows/react/governance.ts). Absent from bundles compiled before that pass existed, so
   * their runs replay with the commands they recorded.
   */
  runtime_pass?: true;
  /** Set when audit_level is declared standard or full: the react loop writes the run's audit entry (src/activities/audit.ts). */
  audit_trail?: true;
}

export interface CompiledAgent {
  agent_id: string;
  version: string;
  spec_version: string;
  status: Status;
  meta: { name: string; category?: string; description?: string; owner?: string; tags?: string[] };
  /**
   * The model's instructions: the Markdown body sections, verbatim and in file order
   * (each as `# <name>\n<text>`), joined by blank lines.
   */
  instructions: string;
  sections: BodySection[];
  runtime: CompiledRuntime;
  interface: {
    /** `file_fields`: accept/max_size_mb of `file`/`file-multi` ui widgets, enforced before a run starts. */
    input: { schema: JsonSchema; examples: JsonValue[]; file_fields?: Record<string, { multiple: boolean; accept?: string[]; max_size_mb?: number }> };
    output: { schema: JsonSchema; render?: JsonObject; provenance?: { citations_required?: boolean } };
  };
  tools: { tool_choice: 'none' | 'auto' | 'required'; refs: CompiledTool[] };
  knowledge: { refs: CompiledKnowledge[]; retrieval?: JsonObject };
  memory: { mode: 'none' | 'session' | 'project' | 'user'; read_collections: CompiledCollection[]; write_collections: CompiledCollection[] };
  state?: { session_history?: 'ephemeral' | 'session'; working_state?: 'ephemeral' | 'session'; scratchpad_visible_to_model?: boolean; max_state_tokens?: number };
  artifacts: { enabled: boolean; save_input: boolean; save_output: boolean; save_intermediate: boolean; retention_class: 'standard' | 'extended' | 'ephemeral' | 'restricted' };
  policies: CompiledPolicies;
  role?: CompiledRole;
  guardrails: {
    input: CompiledGuardrail[];
    tool_input: CompiledGuardrail[];
    tool_output: CompiledGuardrail[];
    output: CompiledGuardrail[];
    tool_calls: { require_user_confirmation_for: string[]; block_tools_on_input_fail: boolean };
  };
  observability?: JsonObject;
  routing?: { intents?: string[]; trigger_phrases?: string[]; priority?: number; fallback_agents?: string[]; tool_description?: string };
  /** Injected from the registry's tenant.md: artifact store, telemetry defaults, residency, where each credentials_ref is read. */
  tenant?: CompiledTenant;
  orchestration: CompiledOrchestration;
  /** Defaults to `{ id: 'agf.react', config: {} }` when the file declares none. */
  execution_policy: ExecutionPolicy;
  /** The Agent Format's sub-agents named by alias in PolicySteps. */
  local_agents: { alias: string; agent_ref: string }[];
  /** Present when orchestration.can_be_invoked_as_tool is true. */
  tool_manifest?: ToolManifest;
  /** sha256 (hex) of the canonical JSON of this object without `content_hash`. */
  content_hash: string;
}

/**
 * What `loom compile AGENT_ID` emits and what a run starts from: the root agent plus the whole
 * closure of agents it may drive (pattern members, local agents, delegates, escalation targets,
 * agent tools), keyed by agent_id.
 */
export interface CompiledBundle {
  format: 'agentloom.compiled/v1';
  root: string;
  agents: Record<string, CompiledAgent>;
  /** sha256 over the canonical JSON of `{format, root, agents}`. */
  content_hash: string;
}

/** Where a worker reads one `credentials_ref`: an environment variable or a file (tenant.md `secrets`). */
export interface SecretRef { env?: string; file?: string }
export interface HumanQueue { description: string; answered_by?: string }

/** What the compiler injects into a compiled agent (`tenant`), visible in `loom compile`. */
export interface CompiledTenant {
  tenant_id: string;
  data_residency?: string;
  artifact_store?: JsonObject;
  telemetry?: JsonObject;
  /** credentials_ref → where a worker reads it (env var name or file path), for the refs this agent uses. */
  secrets?: Record<string, SecretRef>;
}

/** Memory writeback strategies (`writeback.strategy`): `output` the answer as given, `summary` its first characters, `exchange` the message and the answer. */
export const WRITEBACK_STRATEGIES = ['output', 'summary', 'exchange'] as const;
export type WritebackStrategy = (typeof WRITEBACK_STRATEGIES)[number];
