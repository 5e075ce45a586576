/** Agent compilation: normalize, validate, resolve references, emit the CompiledAgent. */
import type {
  CompiledAgent, CompiledGuardrail, CompiledModel,
  Diagnostic, EscalationRule, ExecutionPolicy, JsonSchema, JsonValue, OrchestrationPattern, ToolManifest,
  GuardrailResultType,
} from '../compiled/types';
import { diag, fieldPath, posOf, type PathPart } from './source';
import { schemaDiagnostics } from './validate';
import { AGF_POLICIES, RESERVED_PATTERNS, VENDOR_POLICY_RE } from './schemas';
import type { Entry, Registry } from './registry';
import { checkExpr } from '../shared/expr';
import { CONDITION_OPERATORS } from '../shared/condition-operators';
import { editDistance } from '../shared/edit-distance';
import { compileStrategies, isSeed002Graph } from './strategies';
import { unenforcedFields, unenforcedMessage } from './enforcement';
import { withinResidency } from '../governance/residency';
import { checkRelease } from './release';
import { compiledTenant, credentialRefs, unresolvedRefMessage } from './tenant';
import { asArr, asNum, asObj, asStr, isObj, json, jsonObj, statusOf, strip, type Obj } from './values';
import { compileModel } from './compiled-entries';

export { compileModel };
import { AgentBuild, Ctx } from './sections/context';
import { applyTenantResidency, compileHeader, normalize } from './sections/header';
import { compileBody, lintMeta } from './sections/body';
import { compileRuntime } from './sections/runtime';
import { compileInterface } from './sections/interface';
import { compileRole } from './sections/role';
import { compileTools } from './sections/tools';
import { compileKnowledge } from './sections/knowledge';
import { compileMemory } from './sections/memory';


/** AGL050: the scope of `retention_class: ephemeral` (decisions 261-264; src/activities/ephemeral.ts). */
const EPHEMERAL_SCOPE = 'retention_class ephemeral: a root agf.react run (loom run/start) keeps its input out of the run\'s history and deletes everything it stored (input, conversation, tool results) as it ends, keeping the final output only until it is collected; its history holds the model\'s text and registry tool call arguments only by reference, but still holds, until the Temporal namespace\'s retention deletes it: the arguments of agent-tool, delegation and escalation calls, arguments an approver sends, the errors a correction turn names, and the keys (not the values) of results a dependencies-loop call writes to State (_outputPath). Run as a member of an orchestration, as an orchestrator, or in a chat session, it only writes no artifacts';

export interface AgentResult {
  agent?: Omit<CompiledAgent, 'content_hash'>;
  diags: Diagnostic[];
  /** agent_ids this agent needs in its bundle. */
  needs: string[];
  /** registry entries read (their own file diagnostics belong to the bundle). */
  touched: Entry[];
}

const KNOWN_BLOCKED = ['legal_advice', 'medical_advice', 'financial_advice', 'adult_content', 'hate_speech', 'violence', 'self_harm', 'harassment', 'illegal_activity'];
const ON_FAIL: Record<GuardrailResultType, string[]> = {
  score: ['block', 'warn', 'log', 'escalate', 'retry'],
  transform: ['apply', 'reject', 'redact'],
  annotate: ['skip', 'fail_closed'],
  enrich: ['skip', 'fail_closed'],
};
const OUTPUT_KEYWORDS = ['last', 'merge', 'first'];


// ---- the agent -----------------------------------------------------------------------------
export function compileAgentEntry(reg: Registry, entry: Entry): AgentResult {
  const src = entry.src;
  if (!src?.data) return { diags: [], needs: [], touched: [] };
  const ctx = new Ctx(src, reg, {});
  const d = normalize(ctx, src.data);
  ctx.data = d;
  applyTenantResidency(reg, d);
  compileHeader(ctx, d, entry);
  const b = new AgentBuild(d, entry.id);
  for (const section of [compileBody, lintMeta, compileRuntime, compileInterface, compileRole, compileTools, compileKnowledge, compileMemory]) section(ctx, b);
  const { agentId, status, active, bodySections, instructions, model, fallback, fileFields, role, toolRefs, seenTools, toolChoice, kbRefs } = b;
  const readC = b.readCollections;
  const writeC = b.writeCollections;
  const mode = b.memoryMode;
  const meta = asObj(d.meta);
  const desc = asStr(meta.description);
  const rt = asObj(d.runtime);
  const temp = asNum(rt.temperature);
  const itf = asObj(d.interface);
  const inSchema = asObj(itf.input).schema;
  const outSchema = asObj(itf.output).schema;
  const examples = asArr(asObj(itf.input).examples);
  const orch = asObj(d.orchestration);
  const invocable = orch.can_be_invoked_as_tool === true;
  const tsec = asObj(d.tools);
  const ksec = asObj(d.knowledge);
  const provenance = asObj(asObj(itf.output).provenance);

  // policies
  const pol = asObj(d.policies);
  asArr(pol.blocked_content).forEach((b, i) => {
    if (typeof b === 'string' && !KNOWN_BLOCKED.includes(b)) ctx.warn(['policies', 'blocked_content', i], 'AGL014', `\`${b}\` is not in the blocked_content vocabulary (${KNOWN_BLOCKED.join(', ')})`);
  });
  asArr(pol.allowed_connectors).forEach((c, i) => {
    if (typeof c === 'string' && !/^[a-z0-9][a-z0-9_-]{1,63}$/.test(c)) ctx.err(['policies', 'allowed_connectors', i], 'AGF013', `connector \`${c}\` is not a valid connector identifier; use the lowercase registered name, e.g. \`sharepoint\``);
  });
  if (active && pol.audit_level === 'none') ctx.warn(['policies', 'audit_level'], 'AGL019', '`audit_level: none` on an active agent; use `standard` or `full`');
  // Issue 11: a declared field the runtime does not enforce is a warning naming it, never silence.
  for (const u of unenforcedFields(d)) ctx.warn(u.at, 'AGL030', unenforcedMessage(u));
  // data_residency (seed 001): a model or tool declaring a region outside it is a hard error.
  const residency = asStr(pol.data_residency);
  if (residency) {
    const outside = (what: string, region: string | undefined): string | undefined =>
      region && !withinResidency(region, residency) ? `${what} is in region \`${region}\`, outside \`policies.data_residency: ${residency}\`; use one whose \`region\` is in \`${residency}\`` : undefined;
    for (const [field, m] of [['model', model], ['fallback_model', fallback]] as const) {
      const why = m && outside(`model \`${m.model_id}\``, m.region);
      if (why) ctx.err(['runtime', field], 'AGF140', why);
    }
    for (const t of toolRefs) {
      const why = outside(`tool \`${t.tool_id}\``, t.region);
      const i = asArr(tsec.refs).findIndex((r) => asStr(asObj(r).ref) === t.tool_id || r === t.tool_id);
      if (why) ctx.err(i >= 0 ? ['tools', 'refs', i] : ['tools'], 'AGF140', why);
    }
  }

  // guardrails
  const gsec = asObj(d.guardrails);
  const gOut: Record<'input' | 'tool_input' | 'tool_output' | 'output', CompiledGuardrail[]> = { input: [], tool_input: [], tool_output: [], output: [] };
  const usedGuardrails = new Set<string>();
  for (const position of ['input', 'tool_input', 'tool_output', 'output'] as const) {
    asArr(gsec[position]).forEach((g, i) => {
      const go = asObj(g);
      const ref = asStr(go.ref);
      if (!ref) return;
      usedGuardrails.add(ref);
      const p: PathPart[] = ['guardrails', position, i];
      const e = ctx.get('guardrail', ref);
      if (!e) { ctx.err([...p, 'ref'], 'AGF011', `guardrail \`${ref}\` is not registered; create guardrails/${ref}.guardrail.md or use one of: ${ctx.known('guardrail')}`); return; }
      const gd = asObj(e.data);
      const gs = statusOf(gd);
      if (gs === 'disabled') ctx.err([...p, 'ref'], 'AGF027', `guardrail \`${ref}\` is disabled; remove it or use an active guardrail`);
      else if (gs === 'deprecated') ctx.warn([...p, 'ref'], 'AGL012', `guardrail \`${ref}\` is deprecated`);
      const beh = asObj(gd.behaviour);
      const rtype = (['score', 'transform', 'annotate', 'enrich'].includes(beh.result_type as string) ? beh.result_type : 'score') as GuardrailResultType;
      const positions = asArr(beh.positions);
      if (positions.length && !positions.includes(position)) ctx.err([...p, 'ref'], 'AGF030', `guardrail \`${ref}\` supports positions ${positions.join(', ')}, not \`${position}\`; move it`);
      const onFail = asStr(go.on_fail);
      if (onFail && !ON_FAIL[rtype].includes(onFail)) ctx.err([...p, 'on_fail'], 'AGF028', `on_fail \`${onFail}\` is not valid for a \`${rtype}\` guardrail; write one of: ${ON_FAIL[rtype].join(', ')}`);
      if (onFail === 'retry' && position !== 'output') ctx.err([...p, 'on_fail'], 'AGF028', '`on_fail: retry` is only valid for output guardrails; use block, warn, log or escalate');
      const thr = asNum(go.severity_threshold) ?? asNum(gd.default_severity_threshold);
      if (rtype === 'score' && thr === undefined) ctx.err(p, 'AGF029', `\`${ref}\` is a score guardrail; add \`severity_threshold: <0-10>\``);
      const prov = asObj(gd.provider);
      gOut[position].push(strip({
        ref, version: asStr(gd.version) ?? '0.0.0', status: gs, result_type: rtype,
        provider: strip({ type: asStr(prov.type) ?? 'builtin', name: asStr(prov.name), config: isObj(prov.config) ? jsonObj(prov.config) : undefined, credentials_ref: asStr(prov.credentials_ref) }),
        severity_threshold: thr,
        on_fail: (onFail ?? 'block') as CompiledGuardrail['on_fail'],
      } as CompiledGuardrail & Obj));
    });
  }
  const tcalls = asObj(gsec.tool_calls);
  const confirm = asArr(tcalls.require_user_confirmation_for).filter((x): x is string => typeof x === 'string');
  confirm.forEach((t, i) => {
    if (!seenTools.has(t)) ctx.err(['guardrails', 'tool_calls', 'require_user_confirmation_for', i], 'AGF018', `\`${t}\` is not a tool declared in \`tools.refs\`; add \`- ref: ${t}\` to tools or remove it here`);
  });

  // observability lint
  const obs = d.observability;
  if (active && obs === undefined && toolRefs.some((t) => t.side_effects)) ctx.warn([], 'AGL005', 'active agent with side-effect tools has no `observability`; add tracing/metrics/logs');
  if (active && isObj(obs)) for (const sig of ['tracing', 'metrics', 'logs']) {
    if (asObj(obs[sig]).exporter === 'console') ctx.err(['observability', sig, 'exporter'], 'AGF033', '`exporter: console` is not permitted on an active agent; use `otlp` (or `none`)');
  }
  const signalOff = (s: string): boolean => !isObj(asObj(obs)[s]) || asObj(asObj(obs)[s]).enabled === false || asObj(asObj(obs)[s]).exporter === 'none';
  if (active && isObj(obs) && ['tracing', 'metrics', 'logs'].every(signalOff))
    ctx.warn(['observability'], 'AGL044', 'tracing, metrics and logs are all disabled on an active (production) agent; enable at least one with `exporter: otlp`', true);
  checkOtlpEndpoints(ctx, obs);
  checkRelease(ctx, d.release, asStr(d.version));

  // local agents (seed 000)
  const aliases = new Map<string, string>();
  asArr(d.local_agents).forEach((la, i) => {
    const lo = asObj(la);
    const alias = asStr(lo.alias);
    const ref = asStr(lo.agent_ref);
    if (!alias || !ref) return;
    if (OUTPUT_KEYWORDS.includes(alias)) ctx.err(['local_agents', i, 'alias'], 'AGF044', `alias \`${alias}\` is an output_from keyword (last, merge, first); choose another alias`);
    if (aliases.has(alias)) ctx.err(['local_agents', i, 'alias'], 'AGF043', `alias \`${alias}\` is declared twice; aliases must be unique`);
    aliases.set(alias, ref);
    if (!reg.entries.agent.has(ref)) ctx.err(['local_agents', i, 'agent_ref'], 'AGF045', `agent \`${ref}\` is not registered; create agents/${ref}.agent.md or fix \`agent_ref\``);
    else { ctx.needs.add(ref); ctx.disabledAgent(['local_agents', i, 'agent_ref'], ref, `local agent \`${alias}\``); }
  });

  // execution policy (seed 000)
  let execution_policy: ExecutionPolicy = { id: 'agf.react', config: {} };
  if (isObj(d.execution_policy)) {
    const ep = d.execution_policy as Obj;
    const id = asStr(ep.id);
    if (id !== undefined) {
      if (id.startsWith('agf.') && !AGF_POLICIES.includes(id)) ctx.err(['execution_policy', 'id'], 'AGF040', `unknown standard policy \`${id}\`; use one of ${AGF_POLICIES.join(', ')} or a vendor id \`x-<vendor>.<name>\``);
      else if (!id.startsWith('agf.') && !VENDOR_POLICY_RE.test(id)) ctx.err(['execution_policy', 'id'], 'AGF041', `policy id \`${id}\` is neither agf.* nor a vendor id; vendor ids look like \`x-<vendor>.<name>\` (e.g. \`x-contoso.custom-react\`)`);
      if (ep.config !== undefined && !isObj(ep.config)) ctx.err(['execution_policy', 'config'], 'AGF042', '`config` must be a mapping');
      execution_policy = { id, config: jsonObj(ep.config) } as ExecutionPolicy;
      if (AGF_POLICIES.includes(id)) policySemantics(ctx, id, asObj(ep.config), aliases);
    }
  } else if (d.execution_policy !== undefined) {
    // schema already reported
  }

  // orchestration
  const delegates = asArr(orch.allowed_delegates).filter((x): x is string => typeof x === 'string');
  const seenDel = new Set<string>();
  delegates.forEach((a, i) => {
    if (seenDel.has(a)) ctx.err(['orchestration', 'allowed_delegates', i], 'AGF021', `delegate \`${a}\` is listed twice`);
    seenDel.add(a);
    if (!reg.entries.agent.has(a)) ctx.err(['orchestration', 'allowed_delegates', i], 'AGF017', `delegate \`${a}\` is not a registered agent; create agents/${a}.agent.md or remove it`);
    else { ctx.needs.add(a); ctx.disabledAgent(['orchestration', 'allowed_delegates', i], a, 'delegate'); }
  });
  if (delegates.length && orch.can_delegate !== true) ctx.warn(['orchestration', 'allowed_delegates'], 'AGL015', '`allowed_delegates` has no effect while `can_delegate` is false; set `can_delegate: true` or remove the list');

  const pattern = compilePattern(ctx, asObj(orch.pattern), aliases, orch.pattern !== undefined);
  if (orch.pattern !== undefined && isObj(d.execution_policy) && asStr((d.execution_policy as Obj).id) !== 'agf.react')
    ctx.warn(['execution_policy'], 'AGL018', 'both `orchestration.pattern` and a multi-agent `execution_policy` are declared; the pattern runs and the policy is ignored — keep one');

  const nodeIds = new Set<string>();
  if (pattern) {
    const pa = pattern as unknown as Obj;
    for (const n of asArr(pa.nodes)) { const id = asStr(asObj(n).id); if (id) nodeIds.add(id); }
    for (const t of asArr(pa.tasks)) { const id = asStr(asObj(t).task_id); if (id) nodeIds.add(id); }
    for (const a of asArr(pa.agents)) { const id = asStr(asObj(a).ref); if (id) nodeIds.add(id); }
    for (const s of asArr(pa.steps)) { const id = asStr(asObj(s).name); if (id) nodeIds.add(id); }
  }
  const escalation: EscalationRule[] = [];
  const catchAll = new Set<string>();
  asArr(orch.escalation).forEach((r, i) => {
    const ro = asObj(r);
    const on = asStr(ro.on);
    const tgt = asObj(ro.target);
    const p: PathPart[] = ['orchestration', 'escalation', i];
    if (!on) return;
    const narrow = ro.guardrail !== undefined || ro.node !== undefined;
    if (narrow && catchAll.has(on)) ctx.warn(p, 'AGL016', `this \`on: ${on}\` rule is narrower than an earlier catch-all rule of the same trigger, so it never fires; move it before the catch-all`);
    if (!narrow) catchAll.add(on);
    const g = asStr(ro.guardrail);
    if (g && !usedGuardrails.has(g)) ctx.err([...p, 'guardrail'], 'AGF032', `guardrail \`${g}\` is not used in this agent's \`guardrails\`; reference one of: ${[...usedGuardrails].join(', ') || 'none declared'}`);
    const node = asStr(ro.node);
    if (node && !nodeIds.has(node)) ctx.err([...p, 'node'], 'AGF032', `node \`${node}\` is not a node/task/member of this agent's pattern; use one of: ${[...nodeIds].join(', ') || 'no pattern declared'}`);
    if (tgt.type === 'agent' && typeof tgt.id === 'string') {
      const te = reg.entries.agent.get(tgt.id);
      if (!te) ctx.err([...p, 'target', 'id'], 'AGF017', `escalation target agent \`${tgt.id}\` is not registered; create agents/${tgt.id}.agent.md or use \`type: human_queue\``);
      else {
        if (asObj(asObj(te.data).orchestration).can_be_invoked_as_tool !== true) ctx.err([...p, 'target', 'id'], 'AGF026', `escalation target \`${tgt.id}\` must set \`orchestration.can_be_invoked_as_tool: true\``);
        ctx.needs.add(tgt.id);
        ctx.disabledAgent([...p, 'target', 'id'], tgt.id, 'escalation target');
      }
    }
    if (tgt.type === 'human_queue' && typeof tgt.id === 'string') {
      const queues = reg.tenant?.human_queues;
      if (queues && !queues[tgt.id]) ctx.err([...p, 'target', 'id'], 'AGF094', `human queue \`${tgt.id}\` is not in the tenant's queue registry (tenant.md \`human_queues\`: ${Object.keys(queues).sort().join(', ') || 'none'}); declare it there or use one of those`);
      else if (!queues) ctx.warn([...p, 'target', 'id'], 'AGL042', `human queue \`${tgt.id}\` cannot be checked: the registry has no tenant.md declaring \`human_queues\`; declare the queues operators answer there`);
    }
    escalation.push(strip({ on: on as EscalationRule['on'], guardrail: g, node, target: { type: tgt.type === 'agent' ? 'agent' : 'human_queue', id: String(tgt.id ?? '') } } as EscalationRule & Obj));
  });

  // credentials_ref (seed 001): must resolve to a secret store entry (hard error); only the
  // reference, and where a worker reads it, is compiled — never the value.
  const refs = credentialRefs(d);
  for (const r of refs) if (!reg.tenant?.secrets[r.ref]) ctx.err(r.path, 'AGF093', unresolvedRefMessage(r.ref, reg.tenant));
  for (const e of ctx.touched) {
    for (const r of credentialRefs(e.data)) {
      refs.push(r);
      if (reg.tenant?.secrets[r.ref] || !e.src) continue;
      const at = posOf(e.src, r.path);
      ctx.diags.push(diag(e.file, at.line, at.column, 'error', 'AGF093', fieldPath(r.path), unresolvedRefMessage(r.ref, reg.tenant)));
    }
  }

  // routing + manifest
  const routing = asObj(d.routing);
  let tool_manifest: ToolManifest | undefined;
  if (invocable) {
    const intents = asArr(routing.intents).filter((x): x is string => typeof x === 'string');
    const base = asStr(routing.tool_description) ?? desc ?? asStr(meta.name) ?? agentId;
    tool_manifest = {
      name: agentId,
      description: (base.trim() + (intents.length ? `\nIntents: ${intents.join(', ')}` : '')).trim(),
      intents,
      examples: asArr(routing.trigger_phrases).filter((x): x is string => typeof x === 'string'),
      parameters: isObj(inSchema) ? jsonObj(inSchema) : { type: 'object' },
      returns: isObj(outSchema) ? jsonObj(outSchema) : { type: 'object' },
    };
  }

  const art = asObj(d.artifacts);
  const rc = art.retention_class;
  // Decision 264: what ephemeral keeps out of durable storage, and what it does not (never silence).
  if (rc === 'ephemeral') ctx.warn(['artifacts', 'retention_class'], 'AGL050', EPHEMERAL_SCOPE);
  if (rc === 'ephemeral') {
    // Decision 270: what an ephemeral run cannot keep out of the store, named rather than silent.
    const kept: string[] = [];
    if (readC.length || writeC.length) kept.push('memory collections (loom run/start refuse the run: entries outlive it)');
    const children = [
      ...(orch.can_delegate === true ? ['delegate_to_agent'] : []),
      ...toolRefs.filter((t) => t.kind === 'agent').map((t) => `agent tool ${t.tool_id}`),
      ...escalation.filter((r) => r.target.type === 'agent').map((r) => `escalation agent ${r.target.id}`),
    ];
    if (children.length) kept.push(`child runs (${[...new Set(children)].join(', ')}), which are not ephemeral: they keep what they store and their input and results are in this run's history`);
    if (kept.length) ctx.warn(['artifacts', 'retention_class'], 'AGL051', `retention_class ephemeral with ${kept.join('; and ')}`);
  }
  const st = asObj(d.state);
  // seed 001 state: max_state_tokens must be less than the input budget (max_input_chars at ~4 characters a token, else the model's window).
  const stateTokens = asNum(st.max_state_tokens);
  const inputChars = asNum(rt.max_input_chars);
  const inputBudget = inputChars !== undefined ? Math.floor(inputChars / 4) : model?.context_window_tokens;
  if (stateTokens !== undefined && inputBudget !== undefined && stateTokens >= inputBudget) {
    const from = inputChars !== undefined ? `runtime.max_input_chars ${inputChars} ÷ 4` : `model \`${model?.model_id}\` context_window_tokens`;
    ctx.err(['state', 'max_state_tokens'], 'AGF170', `max_state_tokens ${stateTokens} is not less than the input budget of ${inputBudget} tokens (${from}); set it below ${inputBudget}`);
  }
  const retry = asObj(rt.retry_policy);
  const agent: Omit<CompiledAgent, 'content_hash'> = strip({
    agent_id: agentId,
    version: asStr(d.version) ?? '0.0.0',
    spec_version: asStr(d.spec_version) ?? '',
    status,
    meta: strip({ name: asStr(meta.name) ?? agentId, category: asStr(meta.category), description: desc, owner: asStr(meta.owner), tags: Array.isArray(meta.tags) ? (json(meta.tags) as string[]) : undefined }),
    instructions,
    sections: bodySections,
    runtime: strip({
      model: model ?? ({ model_id: asStr(rt.model) ?? '', version: '0.0.0', status: 'draft', provider: 'scripted' } as CompiledModel),
      fallback_model: fallback,
      reasoning_effort: rt.reasoning_effort as 'low' | 'medium' | 'high' | undefined,
      temperature: temp, top_p: asNum(rt.top_p), timeout_seconds: asNum(rt.timeout_seconds), max_input_chars: asNum(rt.max_input_chars),
      max_output_tokens: asNum(rt.max_output_tokens), max_turns: asNum(rt.max_turns), max_tool_calls: asNum(rt.max_tool_calls),
      execution_loop: rt.execution_loop === 'dependencies' || rt.execution_loop === 'turn' ? rt.execution_loop : undefined,
      retry_policy: isObj(rt.retry_policy) ? { max_attempts: asNum(retry.max_attempts) ?? 1, backoff_seconds: asNum(retry.backoff_seconds) ?? 0 } : undefined,
    }),
    interface: {
      input: { schema: jsonObj(inSchema), examples: json(examples) as JsonValue[], ...(Object.keys(fileFields).length ? { file_fields: fileFields } : {}) },
      output: strip({ schema: jsonObj(outSchema), render: isObj(asObj(itf.output).render) ? jsonObj(asObj(itf.output).render) : undefined, provenance: isObj(asObj(itf.output).provenance) ? (json(provenance) as { citations_required?: boolean }) : undefined }),
    },
    tools: { tool_choice: toolChoice as 'none' | 'auto' | 'required', refs: toolRefs },
    knowledge: strip({ refs: kbRefs, retrieval: isObj(ksec.retrieval) ? jsonObj(ksec.retrieval) : undefined }),
    memory: { mode, read_collections: readC, write_collections: writeC },
    state: isObj(d.state) ? (json(st) as CompiledAgent['state']) : undefined,
    artifacts: {
      enabled: art.enabled === true, save_input: art.save_input === true, save_output: art.save_output === true, save_intermediate: art.save_intermediate === true,
      retention_class: (rc === 'extended' || rc === 'ephemeral' || rc === 'restricted' ? rc : 'standard'),
    },
    policies: strip({
      pii_redaction: pol.pii_redaction === true, allow_external_http: pol.allow_external_http === true, require_human_approval: pol.require_human_approval === true,
      blocked_content: asArr(pol.blocked_content).filter((x): x is string => typeof x === 'string'),
      allowed_connectors: asArr(pol.allowed_connectors).filter((x): x is string => typeof x === 'string'),
      data_residency: asStr(pol.data_residency),
      audit_level: (pol.audit_level === 'none' || pol.audit_level === 'full' ? pol.audit_level : 'standard'),
      runtime_pass: pol.pii_redaction === true || asArr(pol.blocked_content).length > 0 ? true : undefined,
      audit_trail: pol.audit_level === 'standard' || pol.audit_level === 'full' ? true : undefined,
    }),
    role,
    guardrails: { ...gOut, tool_calls: { require_user_confirmation_for: confirm, block_tools_on_input_fail: tcalls.block_tools_on_input_fail === true } },
    observability: isObj(obs) ? jsonObj(obs) : undefined,
    routing: isObj(d.routing) ? (json(routing) as CompiledAgent['routing']) : undefined,
    tenant: reg.tenant ? compiledTenant(reg.tenant, refs.map((r) => r.ref)) : undefined,
    orchestration: strip({ can_delegate: orch.can_delegate === true, allowed_delegates: delegates, can_be_invoked_as_tool: invocable, escalation, pattern }),
    execution_policy,
    local_agents: [...aliases.entries()].map(([alias, agent_ref]) => ({ alias, agent_ref })),
    tool_manifest,
  } as Omit<CompiledAgent, 'content_hash'> & Obj);
  return { agent, diags: ctx.diags, needs: [...ctx.needs].sort(), touched: ctx.touched };
}

// ---- seed 000 policy semantics ---------------------------------------------------------------
/**
 * AGF180: seed 001 requires `endpoint` when a signal exports over OTLP (`exporter` defaults to otlp).
 * Only the signals the worker exports (tracing, metrics: src/telemetry) and only when switched on
 * (`enabled: true`, the seed's default being false) need one. Decision 245.
 */
function checkOtlpEndpoints(ctx: Ctx, obs: unknown): void {
  for (const sig of ['tracing', 'metrics'] as const) {
    const t = asObj(asObj(obs)[sig]);
    if (t.enabled !== true || (t.exporter ?? 'otlp') !== 'otlp') continue;
    if (typeof t.endpoint === 'string' && t.endpoint.trim() !== '') continue;
    ctx.err(['observability', sig, t.exporter === undefined ? 'enabled' : 'exporter'], 'AGF180',
      `${sig} exports over OTLP but has no \`endpoint\`; add \`endpoint: "https://<collector>/v1/${sig === 'tracing' ? 'traces' : 'metrics'}"\` (the collector's OTLP/HTTP URL) or set \`exporter: none\``);
  }
}

function policySemantics(ctx: Ctx, id: string, cfg: Obj, aliases: Map<string, string>): void {
  const base: PathPart[] = ['execution_policy', 'config'];
  const checkAlias = (p: PathPart[], a: unknown): void => {
    if (typeof a !== 'string') return;
    if (!aliases.has(a)) ctx.err(p, 'AGF046', `\`${a}\` is not a declared alias; add \`local_agents: [{alias: ${a}, agent_ref: <agent_id>}]\` or use one of: ${[...aliases.keys()].join(', ') || 'none declared'}`);
  };
  const checkPath = (p: PathPart[], expr: unknown, earlier: Set<string>, batch: boolean): void => {
    if (typeof expr !== 'string') return;
    const parts = expr.split('.');
    if (expr.includes('[]') && !batch) ctx.err(p, 'AGF047', `\`${expr}\` uses \`.[]\`, which is only valid in agf.batch input_mapping; map a single field instead`);
    if (parts.length < 3 || (parts[1] !== 'input' && parts[1] !== 'output') || parts.slice(2).some((x) => x === '')) {
      ctx.err(p, 'AGF048', `\`${expr}\` is not a path expression; write \`<source>.<input|output>.<field>\`, e.g. \`parent.input.topic\` or \`writer.output.draft\``);
      return;
    }
    const source = parts[0];
    if (source === 'parent') {
      if (parts[1] !== 'input') ctx.err(p, 'AGF048', `\`${expr}\`: the parent only has \`input\`; write \`parent.input.<field>\``);
      return;
    }
    if (parts[1] === 'input') {
      ctx.err(p, 'AGF048', `\`${expr}\`: a step's input is not available at run time; read the parent's input with \`parent.input.${parts.slice(2).join('.')}\` or the step's result with \`${source}.output.…\``);
      return;
    }
    if (!earlier.has(source)) ctx.err(p, 'AGF048', `\`${expr}\` reads from \`${source}\`, which is not \`parent\` or an alias of an earlier step; use ${['parent', ...earlier].map((x) => `\`${x}\``).join(', ')}`);
  };
  const mapping = (p: PathPart[], m: unknown, earlier: Set<string>, batch: boolean): void => {
    for (const [k, v] of Object.entries(asObj(m))) checkPath([...p, k], v, earlier, batch);
  };
  const condition = (p: PathPart[], c: unknown, known: Set<string>): void => {
    const groups = Array.isArray(c) ? c : [c];
    groups.forEach((g, gi) => {
      const gp = Array.isArray(c) ? [...p, gi, 'args_match'] : [...p, 'args_match'];
      for (const [k, v] of Object.entries(asObj(asObj(g).args_match))) {
        checkPath(gp, k, known, false);
        operatorCheck(ctx, [...gp, k], v);
      }
    });
  };
  const stepsOf = (field: 'steps' | 'agents', sequential: boolean): Set<string> => {
    const seen = new Set<string>();
    asArr(cfg[field]).forEach((s, i) => {
      const so = asObj(s);
      checkAlias([...base, field, i, 'agent'], so.agent);
      mapping([...base, field, i, 'input_mapping'], so.input_mapping, sequential ? seen : new Set(), false);
      if (typeof so.agent === 'string') seen.add(so.agent);
    });
    return seen;
  };
  const outputFrom = (declared: Set<string>): void => {
    const of = cfg.output_from;
    const a = typeof of === 'string' ? (OUTPUT_KEYWORDS.includes(of) ? undefined : of) : asStr(asObj(of).agent);
    if (a && !declared.has(a)) ctx.err([...base, 'output_from'], 'AGF046', `output_from \`${a}\` is not an alias used by this policy; use one of ${[...declared, ...OUTPUT_KEYWORDS].join(', ')}`);
  };
  if (id === 'agf.sequential') outputFrom(stepsOf('steps', true));
  else if (id === 'agf.parallel') outputFrom(stepsOf('agents', false));
  else if (id === 'agf.loop') {
    const all = stepsOf('steps', true);
    condition([...base, 'exit_condition'], cfg.exit_condition, all);
    outputFrom(all);
  } else if (id === 'agf.batch') {
    checkAlias([...base, 'agent'], cfg.agent);
    const m = asObj(cfg.input_mapping);
    mapping([...base, 'input_mapping'], m, new Set(), true);
    if (Object.keys(m).length && !Object.values(m).some((v) => typeof v === 'string' && v.includes('.[]')))
      ctx.err([...base, 'input_mapping'], 'AGF047', 'agf.batch input_mapping needs at least one field iterating an array with `.[]`, e.g. `item: "parent.input.items.[].value"`');
  } else if (id === 'agf.conditional') {
    asArr(cfg.routes).forEach((r, i) => {
      const ro = asObj(r);
      checkAlias([...base, 'routes', i, 'agent'], ro.agent);
      condition([...base, 'routes', i, 'when'], ro.when, new Set());
      mapping([...base, 'routes', i, 'input_mapping'], ro.input_mapping, new Set(), false);
    });
    if (cfg.default_agent !== undefined) checkAlias([...base, 'default_agent'], cfg.default_agent);
  }
}

const OPS = CONDITION_OPERATORS as readonly string[];
/** The operator a misspelled key most likely meant (`gtee` → `gte`, `notin` → `not_in`), if any. */
function nearOperator(k: string): string | undefined {
  if (k.length < 3) return undefined;
  const x = k.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const op of OPS) {
    const d = x.replace(/[-_]/g, '') === op.replace(/_/g, '') ? 0 : editDistance(x, op);
    if (d < bestD) { best = op; bestD = d; }
  }
  return best && bestD <= (best.length >= 6 ? 2 : 1) ? best : undefined;
}

/** AGF049: an args_match value that is (or tries to be) an operator object must be a valid one. */
function operatorCheck(ctx: Ctx, p: PathPart[], v: unknown): void {
  if (!isObj(v)) return;
  const keys = Object.keys(v);
  const ops = keys.filter((k) => OPS.includes(k));
  const others = keys.filter((k) => !OPS.includes(k));
  const known = `known operators: ${OPS.join(', ')}`;
  if (ops.length && others.length) {
    ctx.err(p, 'AGF049', `this value mixes operators (${ops.join(', ')}) with other keys (${others.join(', ')}); an operator object holds operators only (${known}) — to compare with a literal mapping write \`{eq: {...}}\``);
    return;
  }
  if (!ops.length) {
    for (const k of others) {
      const near = nearOperator(k);
      if (near) ctx.err([...p, k], 'AGF049', `unknown operator \`${k}\`; did you mean \`${near}\`? (${known}; to compare with a literal mapping write \`{eq: {...}}\`)`, true);
    }
    return;
  }
  for (const op of ['in', 'not_in']) {
    if (op in v && !Array.isArray(v[op])) ctx.err([...p, op], 'AGF049', `\`${op}\` needs a list of values, e.g. \`${op}: [a, b]\``);
  }
  if (typeof v.matches === 'string') {
    try { new RegExp(v.matches); } catch { ctx.err([...p, 'matches'], 'AGF049', '`matches` is not a valid regular expression; fix or escape it'); }
  } else if (v.matches !== undefined) ctx.err([...p, 'matches'], 'AGF049', '`matches` needs a regular expression string');
}

// ---- orchestration.pattern ------------------------------------------------------------------
function compilePattern(ctx: Ctx, p: Obj, aliases: Map<string, string>, present: boolean): OrchestrationPattern | undefined {
  if (!present) return undefined;
  const base: PathPart[] = ['orchestration', 'pattern'];
  const type = asStr(p.type);
  if (!type) return undefined;
  // Seed 002: `type: strategies` carries the seed's orchestration block; a seed-002 graph under `type: graph` is told apart by its PascalCase shape.
  if (type === 'strategies' || (type === 'graph' && isSeed002Graph(p))) return compileStrategies(ctx, p, aliases, base);
  if (RESERVED_PATTERNS.includes(type)) {
    ctx.warn([...base, 'type'], 'AGL017', `pattern type \`${type}\` is reserved for the seed 002 strategies: it compiles but is not yet executed by the runtime; to run the routing strategies write \`type: strategies\` with the seed's \`Selection: {Type: ${type}, …}\` block`);
    return json(p) as unknown as OrchestrationPattern;
  }
  if (!['graph', 'swarm', 'workflow', 'steps'].includes(type)) {
    ctx.err([...base, 'type'], 'AGF050', `unknown pattern type \`${type}\`; use graph, swarm, workflow, steps or strategies (reserved: ${RESERVED_PATTERNS.join(', ')})`);
    return undefined;
  }
  schemaDiagnostics(`pattern:${type}`, p, ctx.src, ctx.diags, () => 'AGF051', base);
  const member = (path: PathPart[], id: unknown, needTool: boolean): void => {
    if (typeof id !== 'string') return;
    const e = ctx.reg.entries.agent.get(id);
    if (!e) { ctx.err(path, 'AGF055', `agent \`${id}\` is not registered; create agents/${id}.agent.md or fix the reference`); return; }
    if (needTool && asObj(asObj(e.data).orchestration).can_be_invoked_as_tool !== true) ctx.err(path, 'AGF026', `swarm member \`${id}\` must set \`orchestration.can_be_invoked_as_tool: true\``);
    ctx.needs.add(id);
    ctx.disabledAgent(path, id, 'pattern member');
  };
  const dupCheck = (list: unknown[], field: string, what: string, path: (i: number) => PathPart[]): Set<string> => {
    const seen = new Set<string>();
    list.forEach((x, i) => {
      const id = asStr(asObj(x)[field]);
      if (!id) return;
      if (seen.has(id)) ctx.err(path(i), 'AGF053', `${what} \`${id}\` is declared twice; ids must be unique`);
      seen.add(id);
    });
    return seen;
  };
  if (type === 'graph') {
    const nodes = asArr(p.nodes);
    nodes.forEach((n, i) => {
      const no = asObj(n);
      if (no.id === '$self') ctx.err([...base, 'nodes', i, 'id'], 'AGF052', '`$self` is the implicit entry node and must not be listed in `nodes`; use it only in `edges.from`');
      else member([...base, 'nodes', i, 'agent_ref'], no.agent_ref, false);
    });
    const ids = dupCheck(nodes, 'id', 'node', (i) => [...base, 'nodes', i, 'id']);
    const edges = asArr(p.edges);
    edges.forEach((e, i) => {
      const eo = asObj(e);
      for (const end of ['from', 'to'] as const) {
        const v = asStr(eo[end]);
        if (end === 'to' && v === '$self') ctx.err([...base, 'edges', i, 'to'], 'AGF052', '`$self` (the orchestrator) is the entry node only and cannot be an edge target (the runtime rejects it); end the edge at a node listed in `nodes`');
        else if (v && v !== '$self' && !ids.has(v)) ctx.err([...base, 'edges', i, end], 'AGF054', `edge ${end} \`${v}\` is not a node id; ${end === 'from' ? 'use `$self` or one' : 'use one'} of: ${[...ids].join(', ')}`);
      }
      if (typeof eo.condition === 'string') {
        const problem = checkExpr(eo.condition);
        if (problem) ctx.err([...base, 'edges', i, 'condition'], 'AGF059', `edge condition does not parse: ${problem}; write e.g. \`result_contains('approved')\` or \`state.score >= 0.8 and not exists(state.error)\``);
      }
    });
    return strip({
      type: 'graph', execution_timeout: asNum(p.execution_timeout) ?? 900, max_node_executions: asNum(p.max_node_executions), node_timeout: asNum(p.node_timeout) ?? 300,
      reset_on_revisit: p.reset_on_revisit === true,
      nodes: nodes.map((n) => ({ id: String(asObj(n).id ?? ''), agent_ref: String(asObj(n).agent_ref ?? '') })),
      edges: edges.map((e) => strip({ from: String(asObj(e).from ?? ''), to: String(asObj(e).to ?? ''), condition: asStr(asObj(e).condition), on: asObj(e).on === 'error' ? ('error' as const) : undefined })),
    } as Obj) as unknown as OrchestrationPattern;
  }
  if (type === 'swarm') {
    const agents = asArr(p.agents);
    agents.forEach((a, i) => member([...base, 'agents', i, 'ref'], asObj(a).ref, true));
    dupCheck(agents, 'ref', 'swarm member', (i) => [...base, 'agents', i, 'ref']);
    const win = asNum(p.repetitive_handoff_detection_window) ?? 0;
    const min = asNum(p.repetitive_handoff_min_unique_agents) ?? 0;
    if (win > 0 && win < min + 1) ctx.err([...base, 'repetitive_handoff_detection_window'], 'AGF056', `repetitive_handoff_detection_window (${win}) must be ≥ repetitive_handoff_min_unique_agents + 1 (${min + 1}), or 0 to disable`);
    return {
      type: 'swarm', max_handoffs: asNum(p.max_handoffs) ?? 20, max_iterations: asNum(p.max_iterations) ?? 20, execution_timeout: asNum(p.execution_timeout) ?? 900,
      node_timeout: asNum(p.node_timeout) ?? 300, repetitive_handoff_detection_window: win, repetitive_handoff_min_unique_agents: min,
      agents: agents.map((a) => ({ ref: String(asObj(a).ref ?? '') })),
    };
  }
  if (type === 'workflow') {
    const tasks = asArr(p.tasks);
    const ids = dupCheck(tasks, 'task_id', 'task', (i) => [...base, 'tasks', i, 'task_id']);
    const deps = new Map<string, string[]>();
    tasks.forEach((t, i) => {
      const to = asObj(t);
      member([...base, 'tasks', i, 'agent_ref'], to.agent_ref, false);
      const ds = asArr(to.dependencies).filter((x): x is string => typeof x === 'string');
      ds.forEach((dep, j) => {
        if (!ids.has(dep)) ctx.err([...base, 'tasks', i, 'dependencies', j], 'AGF054', `dependency \`${dep}\` is not a task_id; use one of: ${[...ids].join(', ')}`);
      });
      const id = asStr(to.task_id);
      if (id) deps.set(id, ds);
    });
    // cycle detection
    const state = new Map<string, number>();
    const reported = new Set<string>();
    const visit = (n: string, stack: string[]): void => {
      state.set(n, 1);
      for (const m of deps.get(n) ?? []) {
        if (!deps.has(m)) continue;
        if (state.get(m) === 1) {
          const cyc = [...stack.slice(stack.indexOf(m)), m];
          const key = [...new Set(cyc)].sort().join(',');
          if (!reported.has(key)) {
            reported.add(key);
            const idx = tasks.findIndex((t) => asObj(t).task_id === m);
            ctx.err([...base, 'tasks', idx, 'dependencies'], 'AGF057', `dependency cycle ${cyc.join(' → ')}; workflow tasks must form a DAG — remove one of these dependencies`);
          }
        } else if (!state.get(m)) visit(m, [...stack, m]);
      }
      state.set(n, 2);
    };
    for (const id of deps.keys()) if (!state.get(id)) visit(id, [id]);
    return strip({
      type: 'workflow', max_workers: asNum(p.max_workers), retry_failed_tasks: p.retry_failed_tasks === true,
      tasks: tasks.map((t) => {
        const to = asObj(t);
        return { task_id: String(to.task_id ?? ''), agent_ref: String(to.agent_ref ?? ''), description: String(to.description ?? ''), priority: asNum(to.priority) ?? 0, dependencies: asArr(to.dependencies).map(String) };
      }),
    } as Obj) as unknown as OrchestrationPattern;
  }
  // steps (seed 004)
  const steps = asArr(p.steps);
  dupCheck(steps, 'name', 'step', (i) => [...base, 'steps', i, 'name']);
  steps.forEach((s, i) => {
    const name = asStr(asObj(asObj(s).agent).ByName);
    if (!name) return;
    if (aliases.has(name)) return;
    if (ctx.reg.entries.agent.has(name)) { ctx.needs.add(name); ctx.disabledAgent([...base, 'steps', i, 'agent', 'ByName'], name, 'step agent'); return; }
    ctx.err([...base, 'steps', i, 'agent', 'ByName'], 'AGF058', `\`${name}\` is neither a local_agents alias nor a registered agent_id; declare \`local_agents: [{alias: ${name}, agent_ref: <agent_id>}]\` or create agents/${name}.agent.md`);
  });
  return { type: 'steps', steps: json(steps) as unknown as import('../compiled/types').StepDefinition[] };
}

export type { JsonSchema };
