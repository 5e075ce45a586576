/**
 * Every YAML/JSON example of seeds 000, 001 and 004 compiles unchanged when placed in an otherwise
 * complete agent file (test/compiler/helpers.ts baseAgent) against the base registry.
 */
import * as fs from 'fs';
import * as path from 'path';
import YAML from 'yaml';
import { compileBundle, formatDiagnostic } from '../../src/compiler';
import { BODY, baseAgent, tempRegistry } from './helpers';

type Obj = Record<string, unknown>;
const reg = tempRegistry();

function merge(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k]) ? merge(out[k] as Obj, v as Obj) : v;
  return out;
}

let n = 0;
function compileWith(snippet: Obj, extra: Obj = {}) {
  const id = `seed-host-${++n}`;
  const data = merge(merge(baseAgent(id), extra), snippet);
  fs.writeFileSync(path.join(reg, 'agents', `${id}.agent.md`), `---\n${YAML.stringify(data)}---\n${BODY}`);
  return { id, ...compileBundle(reg, id) };
}

function expectClean(r: ReturnType<typeof compileWith>): void {
  const errs = r.diagnostics.filter((d) => d.severity === 'error');
  if (errs.length) throw new Error(errs.map(formatDiagnostic).join('\n'));
  expect(r.bundle).toBeDefined();
}

const y = (s: string): Obj => YAML.parse(s) as Obj;

// ---- seed 001 -------------------------------------------------------------------------------
const SEED001: Record<string, string> = {
  meta: `
meta:
  name: "Customer Support Agent"
  category: "support"
  description: >
    Handles first-line customer support for product and billing questions.
  owner: "cx-product-team"
  tags: ["support", "customer", "billing"]`,
  runtime: `
runtime:
  model: "claude-4-sonnet"
  fallback_model: "claude-4-haiku"
  reasoning_effort: "medium"
  temperature: 0.3
  timeout_seconds: 60
  max_input_chars: 20000
  max_output_tokens: 2000
  max_turns: 8
  max_tool_calls: 12
  retry_policy:
    max_attempts: 2
    backoff_seconds: 2`,
  interface: fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'customer-support', 'agents', 'customer-support-agent.agent.md'), 'utf8')
    .split('\n').slice(0).join('\n').match(/^interface:[\s\S]*?(?=^tools:)/m)![0],
  tools: `
tools:
  tool_choice: "auto"
  refs:
    - ref: "search-product-kb"
    - ref: "send-email"
      approval_required: true
      max_calls_per_run: 1`,
  knowledge: `
knowledge:
  refs:
    - ref: "product-docs"
    - ref: "brand-guidelines"
      required: true
      citations_required: true
  retrieval:
    search_mode: "hybrid"
    trigger: "auto"
    grounding_required: true`,
  memory: `
memory:
  mode: "project"
  read_collections: ["customer-preferences"]
  write_collections: ["customer-preferences"]`,
  state: `
state:
  session_history: "ephemeral"
  working_state: "session"
  scratchpad_visible_to_model: true
  max_state_tokens: 1200`,
  artifacts: `
artifacts:
  enabled: true
  save_input: false
  save_output: true
  save_intermediate: false
  retention_class: "standard"`,
  policies: `
policies:
  pii_redaction: true
  allow_external_http: false
  require_human_approval: false
  blocked_content:
    - "legal_advice"
    - "medical_advice"
  allowed_connectors: ["sharepoint", "google_drive"]
  data_residency: "eu"
  audit_level: "full"`,
  guardrails: `
guardrails:
  input:
    - ref: "pii-scan"
      on_fail: "apply"
    - ref: "prompt-injection-scan"
      severity_threshold: 7
      on_fail: "block"
  tool_input:
    - ref: "prompt-injection-scan"
      severity_threshold: 7
      on_fail: "block"
  tool_output:
    - ref: "indirect-injection-scan"
      severity_threshold: 6
      on_fail: "block"
  tool_calls:
    require_user_confirmation_for:
      - "send-email"
      - "create-ticket"
  output:
    - ref: "unsafe-content-check"
      severity_threshold: 5
      on_fail: "block"
    - ref: "pii-scan"
      on_fail: "apply"`,
  tool_calls: `
guardrails:
  tool_calls:
    require_user_confirmation_for:
      - "send-email"
      - "delete-record"
    block_tools_on_input_fail: true`,
  // The seed's ui block names the input fields of its interface example (question, account_id).
  ui: `
interface:
  input:
    schema:
      type: object
      properties:
        question:
          type: string
          description: "The customer's question or request."
        account_id:
          type: string
          description: "Customer account identifier, if known."
      required: ["question"]
ui:
  icon: "headset"
  display_name: "Customer Support"
  short_description: "Get help with product and billing questions."
  order: 5
  featured: true
  ui_hints:
    question:
      widget: "textarea"
      label: "Your question"
      placeholder: "What can I help you with?"
    account_id:
      widget: "text"
      label: "Account ID"
      placeholder: "acct-XXXXX"
      helper_text: "Optional. Speeds up lookup if provided."
localization:
  supported_locales: ["en", "fr", "de", "ja"]
  default_locale: "en"
  localized_ui:
    fr:
      display_name: "Support Client"
      short_description: "Obtenez de l'aide pour vos questions produit et facturation."
      ui_hints:
        question:
          label: "Votre question"
          placeholder: "Comment puis-je vous aider ?"
        account_id:
          label: "Identifiant de compte"
          placeholder: "acct-XXXXX"
          helper_text: "Facultatif. Accélère la recherche si fourni."`,
  graph: `
orchestration:
  pattern:
    type: "graph"
    execution_timeout: 600
    max_node_executions: 20
    node_timeout: 120
    reset_on_revisit: true
    nodes:
      - id: "billing-specialist"
        agent_ref: "billing-agent"
      - id: "tech-specialist"
        agent_ref: "tech-support-agent"
      - id: "report-writer"
        agent_ref: "reporting-agent"
    edges:
      - from: "$self"
        to: "billing-specialist"
        condition: "result_contains('billing')"
      - from: "$self"
        to: "tech-specialist"
        condition: "result_contains('technical')"
      - from: "billing-specialist"
        to: "report-writer"
      - from: "tech-specialist"
        to: "report-writer"`,
  swarm: `
orchestration:
  pattern:
    type: "swarm"
    max_handoffs: 20
    max_iterations: 20
    execution_timeout: 900
    node_timeout: 300
    repetitive_handoff_detection_window: 8
    repetitive_handoff_min_unique_agents: 3
    agents:
      - ref: "architect"
      - ref: "coder"
      - ref: "reviewer"`,
  workflow: `
orchestration:
  pattern:
    type: "workflow"
    max_workers: 4
    retry_failed_tasks: true
    tasks:
      - task_id: "data-extraction"
        agent_ref: "data-extractor-agent"
        description: "Extract key financial data from the quarterly report."
        priority: 5
        dependencies: []
      - task_id: "trend-analysis"
        agent_ref: "analyst-agent"
        description: "Identify trends comparing against previous quarters."
        priority: 3
        dependencies: ["data-extraction"]
      - task_id: "risk-assessment"
        agent_ref: "risk-agent"
        description: "Assess financial risks from the extracted data."
        priority: 3
        dependencies: ["data-extraction"]
      - task_id: "report-generation"
        agent_ref: "reporting-agent"
        description: "Produce the final quarterly analysis report."
        priority: 1
        dependencies: ["trend-analysis", "risk-assessment"]`,
  observability: `
observability:
  tracing:
    enabled: true
    exporter: "otlp"
    endpoint: "https://otel.internal/v1/traces"
    sampling_rate: 1.0
    include_model_inputs: false
    include_model_outputs: true
    include_tool_args: "redacted"
    include_tool_results: "redacted"
    include_kb_chunks: false
    propagate_context: true
    auth:
      type: "bearer"
      credentials_ref: "otel-collector-token"
  metrics:
    enabled: true
    exporter: "otlp"
    endpoint: "https://otel.internal/v1/metrics"
    export_interval_seconds: 60
    retention_days: 30
    custom_dimensions:
      - "agent_id"
      - "model_id"
      - "environment"
    auth:
      type: "bearer"
      credentials_ref: "otel-collector-token"
  logs:
    enabled: true
    exporter: "otlp"
    endpoint: "https://otel.internal/v1/logs"
    level: "info"
    structured: true
    include_trace_context: true
    auth:
      type: "bearer"
      credentials_ref: "otel-collector-token"`,
  evaluation: `
evaluation:
  offline:
    datasets: ["support-gold-v2"]
    metrics:
      - "schema_valid_rate"
      - "escalation_precision"
      - "factuality"
  online:
    monitors:
      - "tool_error_rate"
      - "human_escalation_rate"`,
  routing: `
routing:
  intents: ["support_request", "billing_question", "password_reset"]
  trigger_phrases: ["help", "support", "billing", "reset password"]
  priority: 50
  fallback_agents: ["general-assistant"]
  tool_description: >
    Use this agent for any customer support request related to products,
    billing, or account access. Do not use for general knowledge questions.`,
  release: `
release:
  channel: "stable"
  replaces_version: "0.9.0"
  approvals_required:
    - "product-owner"
    - "ai-safety"
  changelog:
    - version: "1.2.0"
      date: "2026-03-10"
      notes: >-
        Added explicit rule prohibiting speculation about unreleased features.
    - version: "1.0.0"
      date: "2025-11-15"
      notes: "Initial release."`,
  notes: `
notes:
  editor_notes: "Escalation wording still under review with legal."
  migration_notes: "Remove legacy FAQ tool ref in v1.1."
  operational: |
    The account-lookup tool has a known latency spike.`,
};

const DELEGATION = `
orchestration:
  can_delegate: true
  allowed_delegates: ["refund-agent", "escalation-agent"]
  can_be_invoked_as_tool: false
  escalation:
    - on: "guardrail"
      guardrail: "prompt-injection-scan"
      target:
        type: "human_queue"
        id: "security-review"
    - on: "guardrail"
      guardrail: "unsafe-content-check"
      target:
        type: "human_queue"
        id: "content-moderation"
    - on: "model_decision"
      target:
        type: "human_queue"
        id: "tier-2-support"
    - on: "node_failure"
      node: "billing-specialist"
      target:
        type: "agent"
        id: "billing-escalation-agent"
    - on: "node_failure"
      target:
        type: "human_queue"
        id: "ops-oncall"
    - on: "timeout"
      target:
        type: "human_queue"
        id: "ops-oncall"`;

const MINIMAL = `---
spec_version: "1.2"
agent_id: "faq-agent"
version: "1.0.0"
status: "active"
meta:
  name: "FAQ Agent"
  category: "support"
  description: "Answer common product questions from the help center."
  owner: "cx-team"
runtime:
  model: "claude-4-haiku"
  temperature: 0.2
  timeout_seconds: 30
  max_input_chars: 5000
  max_output_tokens: 800
input:
  schema:
    type: object
    properties:
      question: { type: string }
    required: ["question"]
output:
  schema:
    type: object
    properties:
      answer: { type: string }
      confidence: { type: string, enum: ["high", "medium", "low"] }
    required: ["answer", "confidence"]
tools:
  - ref: "search-product-kb"
tool_choice: "auto"
knowledge:
  - ref: "product-docs"
memory:
  mode: "session"
  writeback:
    enabled: false
artifacts:
  enabled: true
  save_input: false
  save_output: true
  retention_class: "standard"
policies:
  pii_redaction: true
  allow_external_http: false
  blocked_content: ["legal_advice", "medical_advice"]
  audit_level: "standard"
guardrails:
  input:
    - id: "pii_scan"
      mode: "detect"
      on_fail: "redact"
  output:
    - id: "schema_validation"
      on_fail: "retry"
ui:
  display_name: "FAQ Agent"
  short_description: "Quick answers to common product questions."
---
# Purpose
Answer common product questions quickly and accurately using the official help center documentation.
# System behavior
You are a helpful product support assistant for SME users.
# Rules
- Only answer questions that can be grounded in the product documentation.
# Non-goals
This agent does not handle billing disputes, refund requests, or account changes.
`;

describe('seed 001 examples', () => {
  it.each(Object.keys(SEED001))('%s example compiles', (name) => {
    expectClean(compileWith(y(SEED001[name])));
  });

  it('delegation + escalation example compiles (with the guardrails and graph examples it refers to)', () => {
    const r = compileWith(y(DELEGATION), merge(y(SEED001.guardrails), y(SEED001.graph)));
    expectClean(r);
    const root = r.bundle!.agents[r.id];
    expect(root.orchestration.escalation).toHaveLength(6);
    expect(Object.keys(r.bundle!.agents)).toEqual(expect.arrayContaining(['refund-agent', 'escalation-agent', 'billing-escalation-agent', 'billing-agent']));
  });

  it('minimal complete example compiles with AGL009 alias warnings only', () => {
    fs.writeFileSync(path.join(reg, 'agents', 'faq-agent.agent.md'), MINIMAL);
    const r = compileBundle(reg, 'faq-agent');
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.diagnostics.some((d) => d.code === 'AGL009')).toBe(true);
    const a = r.bundle!.agents['faq-agent'];
    expect(a.tools.refs.map((t) => t.tool_id)).toEqual(['search-product-kb']);
    expect(a.tools.tool_choice).toBe('auto');
    expect(a.knowledge.refs.map((k) => k.kb_id)).toEqual(['product-docs']);
    expect(a.interface.output.schema).toMatchObject({ required: ['answer', 'confidence'] });
    expect(a.guardrails.input[0]).toMatchObject({ ref: 'pii_scan', on_fail: 'redact' });
    expect(a.sections.map((s) => s.name)).toEqual(['Purpose', 'System behavior', 'Rules', 'Non-goals']);
    expect(JSON.stringify(a)).not.toContain('short_description');
  });

  it('pattern defaults from the seed are applied', () => {
    const g = compileWith(y(`orchestration:\n  pattern:\n    type: graph\n    nodes: [{ id: a, agent_ref: worker }]\n    edges: [{ from: "$self", to: a }]`));
    expectClean(g);
    expect(g.bundle!.agents[g.id].orchestration.pattern).toMatchObject({ execution_timeout: 900, node_timeout: 300, reset_on_revisit: false });
    const s = compileWith(y(`orchestration:\n  pattern:\n    type: swarm\n    agents: [{ ref: coder }]`));
    expect(s.bundle!.agents[s.id].orchestration.pattern).toMatchObject({ max_handoffs: 20, max_iterations: 20, execution_timeout: 900, node_timeout: 300, repetitive_handoff_detection_window: 0, repetitive_handoff_min_unique_agents: 0 });
    const w = compileWith(y(`orchestration:\n  pattern:\n    type: workflow\n    tasks: [{ task_id: t, agent_ref: worker, description: d }]`));
    expect(w.bundle!.agents[w.id].orchestration.pattern).toMatchObject({ retry_failed_tasks: false, tasks: [{ priority: 0, dependencies: [] }] });
  });
});

// ---- seed 000 -------------------------------------------------------------------------------
const aliases = (...names: string[]): Obj => ({ local_agents: names.map((alias) => ({ alias, agent_ref: 'worker' })) });
const SEED000: Array<[string, string, string[]]> = [
  ['agf.react', `
execution_policy:
  id: agf.react
  config:
    instructions: |
      You are a helpful assistant with access to tools.
    provider: google
    model: gemini-2.5-pro
    temperature: 0.3
    max_steps: 10
    tool_choice: auto`, []],
  ['agf.sequential', `
execution_policy:
  id: agf.sequential
  config:
    steps:
      - agent: writer
        input_mapping:
          topic: "parent.input.topic"
      - agent: editor
        input_mapping:
          draft: "writer.output.draft"
    output_from: "editor"`, ['writer', 'editor']],
  ['agf.parallel', `
execution_policy:
  id: agf.parallel
  config:
    agents:
      - agent: food_expert
        input_mapping:
          mood: "parent.input.mood"
      - agent: movie_expert
        input_mapping:
          mood: "parent.input.mood"
    output_from: "merge"`, ['food_expert', 'movie_expert']],
  ['agf.loop', `
execution_policy:
  id: agf.loop
  config:
    steps:
      - agent: writer
        input_mapping:
          topic: "parent.input.topic"
      - agent: quality_checker
        input_mapping:
          draft: "writer.output.draft"
    max_iterations: 5
    exit_condition:
      args_match:
        quality_checker.output.score: { gte: 0.8 }
    output_from: "writer"`, ['writer', 'quality_checker']],
  ['agf.batch', `
execution_policy:
  id: agf.batch
  config:
    agent: item_processor
    input_mapping:
      item: "parent.input.items.[].value"
    max_batch_count: 100`, ['item_processor']],
  ['agf.conditional', `
execution_policy:
  id: agf.conditional
  config:
    routes:
      - when:
          args_match:
            parent.input.language: { in: ["zh", "ja", "ko"] }
        agent: cjk_translator
        input_mapping:
          text: "parent.input.text"
      - when:
          args_match:
            parent.input.language: "en"
        agent: english_processor
    default_agent: generic_handler`, ['cjk_translator', 'english_processor', 'generic_handler']],
  ['output_from last', `
execution_policy:
  id: agf.sequential
  config:
    steps: [{ agent: reviewer }]
    output_from: "last"`, ['reviewer']],
  ['output_from alias', `
execution_policy:
  id: agf.sequential
  config:
    steps: [{ agent: reviewer }]
    output_from: "reviewer"`, ['reviewer']],
  ['output_from custom_transform', `
execution_policy:
  id: agf.sequential
  config:
    steps: [{ agent: reviewer }]
    output_from:
      custom_transform: "myorg.summarize_pipeline_outputs"
      description: "Summarize all step outputs into a single executive report"`, ['reviewer']],
  ['vendor policy', `
execution_policy:
  id: x-contoso.custom-react
  config: { anything: [1, 2, 3] }`, []],
];

describe('seed 000 execution policy examples', () => {
  it.each(SEED000)('%s compiles', (_name, snippet, names) => {
    const r = compileWith(y(snippet), aliases(...names));
    expectClean(r);
    const a = r.bundle!.agents[r.id];
    expect(a.execution_policy.id).toBe((y(snippet).execution_policy as Obj).id);
    expect(a.local_agents.map((l) => l.alias)).toEqual(names);
    if (names.length) expect(r.bundle!.agents.worker).toBeDefined();
  });

  it('defaults to agf.react with an empty config', () => {
    const r = compileWith({});
    expect(r.bundle!.agents[r.id].execution_policy).toEqual({ id: 'agf.react', config: {} });
  });
});

// ---- seed 004 -------------------------------------------------------------------------------
const STEPS004 = [
  '{"name": "analysis", "agent": {"ByName": "analyst"}, "prompt_template": "Analyze: {{input}}"}',
  '{"name": "review-legal", "mode": "FanOut", "agent": {"ByName": "legal-agent"}, "prompt_template": "Review legal aspects: {{input}}"}',
  '{"name": "aggregate", "mode": "Collect", "agent": {"ByName": "summary-agent"}, "prompt_template": "Synthesize these reviews: {{input}}"}',
  '{"name": "escalation", "mode": {"Conditional": {"condition": "needs_review"}}, "agent": {"ByName": "supervisor"}, "prompt_template": "Review this escalation: {{input}}"}',
  '{"name": "refine", "mode": {"Loop": {"max_iterations": 5, "until": "DONE"}}, "agent": {"ByName": "editor"}, "prompt_template": "Refine this draft: {{input}}"}',
];
const COMBINED004 = `{
  "steps": [
    {"name": "extract", "agent": {"ByName": "extractor"}, "prompt_template": "Extract from: {{input}}", "output_var": "data"},
    {"name": "legal-review", "mode": "FanOut", "agent": {"ByName": "legal"}, "prompt_template": "Legal review: {{data}}"},
    {"name": "compliance-review", "mode": "FanOut", "agent": {"ByName": "compliance"}, "prompt_template": "Compliance review: {{data}}"},
    {"name": "synthesize", "mode": "Collect", "agent": {"ByName": "synthesizer"}, "prompt_template": "Combine reviews: {{input}}"},
    {"name": "escalate", "mode": {"Conditional": {"condition": "high_risk"}}, "agent": {"ByName": "supervisor"}, "prompt_template": "Escalate: {{input}}"},
    {"name": "finalize", "mode": {"Loop": {"max_iterations": 3, "until": "APPROVED"}}, "agent": {"ByName": "finalizer"}, "prompt_template": "Finalize: {{input}}"}
  ]
}`;

describe('seed 004 steps examples', () => {
  it.each(STEPS004)('step %s compiles unchanged', (stepJson) => {
    const step = JSON.parse(stepJson) as Obj;
    const name = (step.agent as Obj).ByName as string;
    const r = compileWith({ orchestration: { pattern: { type: 'steps', steps: [step] } } }, aliases(name));
    expectClean(r);
    expect((r.bundle!.agents[r.id].orchestration.pattern as { steps: unknown[] }).steps[0]).toEqual(step);
  });

  it('the combined workflow compiles unchanged', () => {
    const cfg = JSON.parse(COMBINED004) as { steps: Obj[] };
    const names = cfg.steps.map((s) => (s.agent as Obj).ByName as string);
    const r = compileWith({ orchestration: { pattern: { type: 'steps', ...cfg } } }, aliases(...names));
    expectClean(r);
    expect(r.bundle!.agents[r.id].orchestration.pattern).toEqual({ type: 'steps', steps: cfg.steps });
  });

  it('ByName falls back to an agent_id when no alias matches', () => {
    const r = compileWith({ orchestration: { pattern: { type: 'steps', steps: [{ name: 's', agent: { ByName: 'coder' } }] } } });
    expectClean(r);
    expect(r.bundle!.agents.coder).toBeDefined();
  });

  it('reserved seed 002 pattern types compile with a warning, not an error', () => {
    for (const type of ['sequential', 'roundrobin', 'keyword', 'structured', 'statemachine', 'scattergather', 'mapreduce', 'llm', 'magentic', 'adversarial']) {
      const r = compileWith({ orchestration: { pattern: { type, agents: ['worker'] } } });
      expectClean(r);
      expect(r.diagnostics.some((d) => d.code === 'AGL017' && d.severity === 'warning')).toBe(true);
    }
  });
});
