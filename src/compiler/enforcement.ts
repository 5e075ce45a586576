/**
 * The enforcement inventory: every field of an agent definition the compiler accepts,
 * classified by what the runtime does with it. The rule: a field the runtime does not enforce is
 * a compile warning naming it (AGL030; `loom validate --strict` fails on it), never silence.
 *
 *   enforced     the runtime (or the compiler, for compile-time constraints) acts on it
 *   warned       accepted but not acted on: declaring it gives AGL030 (or only some values, `warnWhen`)
 *   descriptive  metadata for people and tools (the seed says the platform does not act on it)
 *
 * test/policies/enforcement.unit.test.ts walks AGENT_SCHEMA and fails when a field is not in this
 * table, so a new field cannot be added without saying what the runtime does with it. Pure.
 */
import type { PathPart } from './source';

export type Enforcement = 'enforced' | 'warned' | 'descriptive';

export interface FieldRule {
  status: Enforcement;
  /** Where it is enforced, or what a warned field would need. */
  note: string;
  /** `warned` fields: warn only for these values (default: any declared value). */
  warnWhen?: (value: unknown, doc: Record<string, unknown>) => boolean;
  /** Enforced by the react loop only: warned on an agent that orchestrates members instead. */
  reactOnly?: true;
  /** `reactOnly` fields: the warning on an orchestrating agent, when the generic one (members apply their own) is not true. */
  orchestratorNote?: string;
}

const E = (note: string): FieldRule => ({ status: 'enforced', note });
const R = (note: string, warnWhen?: FieldRule['warnWhen']): FieldRule => ({ status: 'enforced', note, reactOnly: true, ...(warnWhen ? { warnWhen } : {}) });
const D = (note = 'metadata; the runtime does not act on it'): FieldRule => ({ status: 'descriptive', note });
const W = (note: string, warnWhen?: FieldRule['warnWhen']): FieldRule => ({ status: 'warned', note, ...(warnWhen ? { warnWhen } : {}) });

const isTrue = (v: unknown): boolean => v === true;
const artifactsOn = (_v: unknown, doc: Record<string, unknown>): boolean => (doc.artifacts as { enabled?: unknown } | undefined)?.enabled === true;
const observabilityField = 'log records are exported only to `observability.logs.endpoint`: with exporter otlp and no endpoint, none is sent (src/telemetry/logs.ts)';
/** Logs switched on that export over otlp (the default) with no endpoint: nothing is sent. */
const logsGoNowhere = (_v: unknown, doc: Record<string, unknown>): boolean => {
  const l = (doc.observability as { logs?: { enabled?: unknown; exporter?: unknown; endpoint?: unknown } } | undefined)?.logs;
  return !!l && l.enabled === true && (l.exporter ?? 'otlp') === 'otlp' && !(typeof l.endpoint === 'string' && l.endpoint.trim());
};
/** `observability.<section>.enabled: true` (the seed's default is off). */
const sectionEnabled = (doc: Record<string, unknown>, section: 'tracing' | 'metrics' | 'logs'): boolean =>
  ((doc.observability as Record<string, { enabled?: unknown } | undefined> | undefined)?.[section]?.enabled === true);
const tracingOn = (doc: Record<string, unknown>): boolean => sectionEnabled(doc, 'tracing');
const tracingField = (what: string): FieldRule => E(`worker-side spans (src/telemetry/tracing.ts): ${what}`);
/** observability.tracing: what the worker does with each field. */
const TRACING_FIELDS: Record<string, FieldRule> = {
  'observability.tracing.enabled': tracingField('emitted only when true (the seed default is false)'),
  'observability.tracing.exporter': tracingField('otlp (OTLP/HTTP JSON) or console; none emits nothing'),
  'observability.tracing.endpoint': tracingField('where spans are sent; required for otlp (AGF180)'),
  'observability.tracing.sampling_rate': tracingField('share of runs traced, stable per run id'),
  'observability.tracing.include_model_inputs': tracingField('model input messages on agent.model_invocation only when true'),
  'observability.tracing.include_model_outputs': tracingField('the model reply on agent.model_invocation unless false'),
  'observability.tracing.include_tool_args': tracingField('tool arguments on agent.tool_call: none (default), redacted (sensitive fields replaced) or full'),
  'observability.tracing.include_tool_results': tracingField('tool result on agent.tool_call: redacted (default), full or none'),
  'observability.tracing.include_kb_chunks': tracingField('search_knowledge hits as events of agent.kb_retrieval when true'),
  'observability.tracing.propagate_context': tracingField('unless false, http and MCP-over-HTTP tool calls carry a W3C traceparent naming their agent.tool_call span, and sub-agent runs join the trace under agent.run (propagation.ts)'),
  'observability.tracing.auth.type': W('mtls is not supported: the worker logs it and exports no spans (bearer and none work)', (v, d) => v === 'mtls' && tracingOn(d)),
  'observability.tracing.auth.credentials_ref': tracingField('bearer token read from the tenant secret store in the worker, sent as Authorization'),
};
const metricsOn = (doc: Record<string, unknown>): boolean => sectionEnabled(doc, 'metrics');
const metricsField = (what: string): FieldRule => E(`worker-side metrics (src/telemetry/metrics.ts): ${what}`);
/** observability.metrics: what the worker does with each field. */
const METRICS_FIELDS: Record<string, FieldRule> = {
  'observability.metrics.enabled': metricsField('recorded only when true (the seed default is false)'),
  'observability.metrics.exporter': metricsField('otlp (OTLP/HTTP JSON) or console; none records nothing'),
  'observability.metrics.endpoint': metricsField('where metrics are pushed; required for otlp (AGF180)'),
  'observability.metrics.export_interval_seconds': metricsField('the periodic export interval'),
  'observability.metrics.retention_days': D('enforced by the OTel Collector or backend, not the agent runtime (the Agent Definition Specification)'),
  'observability.metrics.custom_dimensions': metricsField('agent_id, version, model_id and tenant_id resolve; other keys are dropped (the Agent Definition Specification)'),
  'observability.metrics.auth.type': W('mtls is not supported: the worker logs it and exports no metrics (bearer and none work)', (v, d) => v === 'mtls' && metricsOn(d)),
  'observability.metrics.auth.credentials_ref': metricsField('bearer token read from the tenant secret store in the worker, sent as Authorization'),
};
/** agf.batch gives its members the items of the input, never the run's input: what a root batch run reads from memory reaches no member. */
const batchReadsMemory = (v: unknown, doc: Record<string, unknown>): boolean =>
  Array.isArray(v) && v.length > 0 && (doc.execution_policy as { id?: unknown } | undefined)?.id === 'agf.batch' && (doc.memory as { mode?: unknown } | undefined)?.mode !== 'none';
const writesMemory = (doc: Record<string, unknown>): boolean => {
  const w = (doc.memory as { write_collections?: unknown } | undefined)?.write_collections;
  return Array.isArray(w) && w.length > 0;
};

/** Field path (`[]` = every item of a list) -> what the runtime does with it. */
export const AGENT_FIELDS: Record<string, FieldRule> = {
  spec_version: E('compiler: selects the accepted shape'),
  agent_id: E('bundle key, workflow ids, search attribute AgentId'),
  version: E('publish ordering, search attribute AgentVersion'),
  status: E('root runs: draft only with --allow-draft (RunOptions.allow_draft), disabled refused, deprecated warned; members: disabled refused, deprecated warned (src/governance/lifecycle.ts)'),
  'meta.name': D(), 'meta.category': D(), 'meta.description': D(), 'meta.owner': D(), 'meta.tags': D(),
  'runtime.model': E('the model activity'),
  'runtime.fallback_model': E('react loop: takes over after the model fails or a second bad answer; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'runtime.reasoning_effort': E('sent to openai-compatible providers as reasoning_effort (model preferences)'),
  'runtime.temperature': E('model preferences'), 'runtime.top_p': E('model preferences'),
  'runtime.timeout_seconds': E('react loop deadline'), 'runtime.max_input_chars': E('first-run check'),
  'runtime.max_output_tokens': E('model preferences (hard cap)'), 'runtime.max_turns': E('react limits; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'), 'runtime.max_tool_calls': E('react limits; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'runtime.execution_loop': R('react loop: `dependencies` schedules calls by `_dependsOn`/`_outputPath` (src/workflows/react/execution-loop.ts)'),
  'runtime.retry_policy.max_attempts': E('model activity retry options; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'), 'runtime.retry_policy.backoff_seconds': E('model activity retry options; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'interface.input.schema': E('input refused before a run starts'),
  'interface.input.examples': D('the default input of `loom run`'),
  'interface.output.schema': E('final answer checked, one correction turn'),
  'interface.output.render': E('`loom run` prints the output as render.format says (json, markdown, text; src/runtime/output-render.ts)'),
  'interface.output.provenance.citations_required': E('a final answer citing no source gets one correction turn, then the run fails (model activity output check)'),
  'tools.tool_choice': E('model preferences'),
  'tools.refs[].ref': E('tools offered to the model'), 'tools.refs[].approval_required': E('approval before the call'), 'tools.refs[].max_calls_per_run': E('react limits'),
  'knowledge.refs[].ref': E('searched by the search_knowledge builtin tool (inline, files and http backends; src/activities/knowledge.ts)'),
  'knowledge.refs[].required': E('required sources injected into the model instructions on every turn, bounded, with citation ids (model activity)'),
  'knowledge.refs[].citations_required': E('a final answer citing no source gets one correction turn, then the run fails (model activity output check)'),
  'knowledge.refs[].retrieval': W('of a per-source retrieval override only search_mode, max_chunks and grounding_required are applied; trigger is not'),
  'knowledge.retrieval.search_mode': E('search_knowledge: keyword BM25, semantic by embeddings (backend.embeddings or LOOM_EMBEDDINGS_*), hybrid both by reciprocal rank fusion (src/activities/knowledge.ts searchSources)'),
  'knowledge.retrieval.trigger': W('retrieval runs only when the model calls search_knowledge'),
  'knowledge.retrieval.grounding_required': E('a final answer not supported by the chunks retrieved in the run (cites one, cites none not retrieved, half its words in the cited chunks) gets one correction turn, then the run fails (model activity output check)'),
  'knowledge.retrieval.max_chunks': E('search_knowledge result limit'),
  // Memory: a root run (agf.react: src/workflows/react/memory.ts; an orchestrator: src/workflows/orchestrator-memory.ts) and each chat-session message (src/workflows/session.ts).
  'memory.mode': E('`none` turns memory off; compiler: no collection wider than the mode (AGF025); root runs (agf.react and orchestrators) and chat sessions read and write the collections'),
  'memory.read_collections': {
    ...R('root runs (`loom run`/`loom start`) and chat-session messages: keyword-searched with the input (after its input guardrails), {actorId}/{sessionId} substituted (--actor, --session); an agf.react run gives the matches to the model as a `# Memory` message, an orchestrator appends the block to the task its members are given (a JSON task: the context of members given the task itself)', batchReadsMemory),
    orchestratorNote: 'an agf.batch run gives its members the items of its input, never the input itself: what `memory.read_collections` recalls at the start of a root run reaches no member (write_collections are still written back)',
  },
  'memory.write_collections': E('root runs (agf.react and orchestrators) and chat-session messages: written back at the end per each collection\'s writeback (enabled, strategy); approval_required waits for `loom approve`/`loom reject` (the run or session shows it as a pending approval)'),
  // The Agent Definition Specification's text, not its minimal example, wins: write behaviour is governed by the collection definition, not the agent file.
  'memory.writeback.enabled': W('the agent-level writeback block is not read: each collection\'s own `writeback.enabled` governs its writes (to write nothing, list no write_collections)', (v, doc) => v === true || (v === false && writesMemory(doc))), 'memory.writeback.approval_required': W('the agent-level writeback block is not read: set `approval_required` in the collection file', isTrue), 'memory.writeback.strategy': W('the agent-level writeback block is not read: set `strategy` in the collection file'),
  'state.session_history': E('chat sessions (src/workflows/session.ts; `loom chat`, `loom send`) and `loom run --session`: earlier exchanges given to each turn, or none for ephemeral'),
  'state.working_state': E('chat sessions: each turn\'s notes (run State, warnings) kept in the session scratchpad, or dropped for ephemeral'),
  'state.scratchpad_visible_to_model': E('chat sessions: the scratchpad shown to the model at the start of each turn'),
  'state.max_state_tokens': E('chat sessions and `loom run --session`: history + scratchpad trimmed, oldest first; compiler: below the input budget (AGF170)'),
  'artifacts.enabled': R('a completed react run writes its artifacts through the shared store (src/activities/artifacts.ts; `loom artifacts RUN_ID`)'),
  'artifacts.save_input': R('input.json: the first user message as stored (after pii_redaction)', (v, d) => v === true && artifactsOn(v, d)),
  'artifacts.save_output': R('output.json: the final output', (v, d) => v === true && artifactsOn(v, d)),
  'artifacts.save_intermediate': R('intermediate.json: every tool call with its arguments and result', (v, d) => v === true && artifactsOn(v, d)),
  'artifacts.retention_class': R('ephemeral writes no artifact, and a root run deletes what it stored as it ends (AGL050 says what its history keeps); standard/extended expire after LOOM_ARTIFACT_STANDARD_DAYS/EXTENDED_DAYS (artifactsPurgeWorkflow); restricted sealed with the codec key', artifactsOn),
  'policies.pii_redaction': R('runtime PII pass on the input before the model and on every model reply (src/governance/pii.ts)'),
  'policies.allow_external_http': E('tool HTTP egress check (src/governance/network.ts); on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'policies.require_human_approval': E('approval before every tool call; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'policies.blocked_content': R('builtin classifier on the final answer, refused with the category (src/governance/content.ts)'),
  'policies.allowed_connectors': E('tools declaring a `connector` outside the list are refused before they run; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'policies.data_residency': R('models and tools declaring a `region` outside it are refused before the call'),
  'policies.audit_level': R('standard/full: one hash-chained entry per run in <LOOM_HOME>/audit/<agent_id>.jsonl (src/activities/audit.ts)'),
  role: E('compiler: tools checked against the role ceilings'),
  ...Object.fromEntries(['input', 'tool_input', 'tool_output', 'output'].flatMap((p) => [
    [`guardrails.${p}[].ref`, E(`runGuardrails at ${p}${p.startsWith('tool_') ? '; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)' : ''}`)],
    [`guardrails.${p}[].severity_threshold`, E(`runGuardrails at ${p}`)],
    [`guardrails.${p}[].on_fail`, E(`runGuardrails at ${p}`)],
  ])),
  'guardrails.tool_calls.require_user_confirmation_for': E('approval before those tools run; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  'guardrails.tool_calls.block_tools_on_input_fail': E('tool calls refused after an input guardrail triggers; on an orchestrator that runs no model turn: handed down to every member (src/compiler/inheritance.ts)'),
  ui: D('presentation hints for clients'),
  localization: D('presentation hints for clients'),
  ...TRACING_FIELDS,
  ...METRICS_FIELDS,
  ...Object.fromEntries(['logs'].flatMap((s) => {
    const keys = ['enabled', 'exporter', 'endpoint', 'level', 'structured', 'include_trace_context', 'auth.type', 'auth.credentials_ref'];
    return keys.map((k) => [`observability.${s}.${k}`, k === 'auth.type'
      ? W('mtls is not supported: the worker logs it and exports no log records (bearer and none work)', (v, d) => v === 'mtls' && sectionEnabled(d, 'logs'))
      : W(observabilityField, logsGoNowhere)]);
  })),
  evaluation: D('advisory metadata (the Agent Definition Specification: the platform does not enforce it)'),
  'routing.intents': D('routing metadata (the Agent Definition Specification: must not change behaviour)'), 'routing.trigger_phrases': D('routing metadata'),
  'routing.priority': D('routing metadata'), 'routing.fallback_agents': D('routing metadata'),
  'routing.tool_description': E('the description a swarm member is offered under'),
  'orchestration.can_delegate': E('delegate_to_agent offered; `false` on an orchestrator that runs no model turn: no member delegates (src/compiler/inheritance.ts)'), 'orchestration.allowed_delegates': E('delegation targets'),
  'orchestration.can_be_invoked_as_tool': E('compiler: agent tools must allow it'),
  'orchestration.escalation[].on': E('escalation rules'), 'orchestration.escalation[].guardrail': E('escalation rules'), 'orchestration.escalation[].node': E('escalation rules'),
  'orchestration.escalation[].target.type': E('escalation rules'), 'orchestration.escalation[].target.id': E('escalation rules'),
  'orchestration.pattern': E('one workflow per pattern'),
  release: D(), notes: D(),
  'execution_policy.id': E('one workflow per policy'), 'execution_policy.config': E('the policy workflow'),
  'local_agents[].alias': E('policy steps by alias'), 'local_agents[].agent_ref': E('policy steps by alias'),
};

/** The agent drives members (an orchestration pattern or a multi-agent execution policy) instead of a react loop. */
function orchestrates(doc: Record<string, unknown>): boolean {
  const orch = doc.orchestration as { pattern?: unknown } | undefined;
  const policy = (doc.execution_policy as { id?: unknown } | undefined)?.id;
  return orch?.pattern !== undefined || (typeof policy === 'string' && policy !== 'agf.react');
}

export interface UnenforcedField {
  /** Where the warning points (the field's parent object, or the field for top-level ones). */
  at: PathPart[];
  /** The dotted field names, e.g. `observability.tracing.endpoint`. */
  fields: string[];
  notes: string[];
}

/** Every declared `warned` field of a front matter, grouped by the object that holds them. */
export function unenforcedFields(doc: Record<string, unknown>): UnenforcedField[] {
  const groups = new Map<string, UnenforcedField>();
  const members = orchestrates(doc);
  for (const [field, rule] of Object.entries(AGENT_FIELDS)) {
    const reactOnly = rule.reactOnly === true && members;
    if (rule.status !== 'warned' && !reactOnly) continue;
    for (const { path, value } of resolve(doc, field.split('.'))) {
      if (rule.warnWhen && !rule.warnWhen(value, doc)) continue;
      if (reactOnly && (value === false || value === 'none' || (Array.isArray(value) && !value.length))) continue;
      const note = reactOnly ? rule.orchestratorNote ?? 'enforced in agf.react runs only: this agent orchestrates members, each applies its own policies' : rule.note;
      const at = path.length > 1 ? path.slice(0, -1) : path;
      const key = JSON.stringify(at);
      const g = groups.get(key) ?? { at, fields: [], notes: [] };
      const name = path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
      g.fields.push(name);
      if (!g.notes.includes(note)) g.notes.push(note);
      groups.set(key, g);
    }
  }
  return [...groups.values()];
}

/** The declared values at a table path (`x[]` expands to every item of the list x). */
function resolve(cur: unknown, parts: string[], path: PathPart[] = []): { path: PathPart[]; value: unknown }[] {
  if (!parts.length) return cur === undefined ? [] : [{ path, value: cur }];
  const [head, ...rest] = parts;
  const list = head.endsWith('[]');
  const key = list ? head.slice(0, -2) : head;
  if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return [];
  const next = (cur as Record<string, unknown>)[key];
  if (next === undefined) return [];
  if (!list) return resolve(next, rest, [...path, key]);
  if (!Array.isArray(next)) return [];
  return next.flatMap((item, i) => resolve(item, rest, [...path, key, i]));
}

/** The AGL030 message: the fields, why they do nothing, what to write instead. */
export function unenforcedMessage(u: UnenforcedField): string {
  const many = u.fields.length > 1;
  const names = u.fields.map((f) => `\`${f}\``).join(', ');
  return `${names} ${many ? 'are' : 'is'} declared but not enforced by the runtime (${u.notes.join('; ')}); remove ${many ? 'them' : 'it'}, or keep ${many ? 'them' : 'it'} knowing ${many ? 'they have' : 'it has'} no effect`;
}
