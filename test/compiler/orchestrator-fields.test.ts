/**
 * What a definition declares is what runs, orchestrators included: on an agent whose own model turn
 * never runs (a multi-agent execution policy, a workflow, steps or strategies pattern) each field of
 * a model turn or a tool call either reaches every member in the bundle (a ceiling or a default) or
 * gets a diagnostic naming it. Real definitions compiled by the project's compiler.
 */
import type { CompiledBundle, Diagnostic } from '../../src/compiled/types';
import { agentDefinition, builtin, definition, Definitions, kb, scripted, type AgentDef, type FrontMatter } from '../helpers/definitions';

const MODEL = scripted({ turns: [{ content: 'ok' }] });
const BACKUP = scripted({ turns: [{ content: 'backup' }] }, 'backup-model');
const OWN_BACKUP = scripted({ turns: [{ content: 'own backup' }] }, 'own-backup-model');
const EU_BACKUP = scripted({ turns: [{ content: 'us' }] }, 'us-backup-model', { region: 'us-east-1' });
const TOOL_SCAN = definition('guardrail', {
  guardrail_id: 'tool-scan', version: '1.0.0', status: 'active', description: 'Builtin pii-regex check on tool calls.',
  behaviour: { result_type: 'transform', positions: ['tool_input', 'tool_output'] }, provider: { type: 'builtin', name: 'pii-regex' },
});

/** Writes the shared definitions, the members and `extra` agents; returns the registry. */
function registry(extra: AgentDef[]): Definitions {
  const defs = new Definitions();
  defs.addAll([MODEL, BACKUP, OWN_BACKUP, EU_BACKUP, builtin('echo'), builtin('calculator'), TOOL_SCAN, kb('facts', { type: 'inline', documents: [{ id: 'd1', text: 'fact' }] })]);
  const members: AgentDef[] = [
    // no limits of its own; may delegate to `careful`
    { agent_id: 'writer', model: MODEL, tools: [builtin('echo')], front: { orchestration: { can_delegate: true, allowed_delegates: ['careful'] } } },
    // its own (stricter) limits, defaults and connectors
    {
      agent_id: 'careful', model: MODEL, tools: [builtin('calculator')],
      front: { runtime: { max_tool_calls: 1, max_turns: 2, retry_policy: { max_attempts: 5, backoff_seconds: 3 }, fallback_model: 'own-backup-model' }, policies: { allowed_connectors: ['crm', 'erp'], allow_external_http: true } },
    },
    { agent_id: 'helper', model: MODEL, front: { orchestration: { can_be_invoked_as_tool: true } } },
    { agent_id: 'eu-member', model: MODEL, front: { policies: { data_residency: 'eu' } } },
  ];
  for (const a of [...members, ...extra]) defs.add(agentDefinition(a));
  return defs;
}

function orchestrator(agent_id: string, front: FrontMatter): AgentDef {
  return { agent_id, model: MODEL, front: { tools: { tool_choice: 'auto', refs: [] }, ...front } };
}
const LOCALS = { local_agents: [{ alias: 'w', agent_ref: 'writer' }, { alias: 'c', agent_ref: 'careful' }] };

/** Every orchestrator whose own model turn never runs, by what makes it one. */
const MEMBERS_ONLY: Record<string, FrontMatter> = {
  'agf.sequential': { ...LOCALS, execution_policy: { id: 'agf.sequential', config: { steps: [{ agent: 'w' }, { agent: 'c' }] } } },
  'agf.parallel': { ...LOCALS, execution_policy: { id: 'agf.parallel', config: { agents: [{ agent: 'w' }, { agent: 'c' }] } } },
  'agf.loop': { ...LOCALS, execution_policy: { id: 'agf.loop', config: { steps: [{ agent: 'w' }, { agent: 'c' }], max_iterations: 2 } } },
  'agf.conditional': { ...LOCALS, execution_policy: { id: 'agf.conditional', config: { routes: [{ when: { args_match: { 'parent.input.lang': 'en' } }, agent: 'w' }], default_agent: 'c' } } },
  'agf.batch': { ...LOCALS, execution_policy: { id: 'agf.batch', config: { agent: 'w', input_mapping: { item: 'parent.input.items.[]' } } } },
  workflow: { orchestration: { pattern: { type: 'workflow', tasks: [{ task_id: 't1', agent_ref: 'writer', description: 'd' }, { task_id: 't2', agent_ref: 'careful', description: 'd', dependencies: ['t1'] }] } } },
  steps: { ...LOCALS, orchestration: { pattern: { type: 'steps', steps: [{ name: 's1', agent: { ByName: 'w' } }, { name: 's2', agent: { ByName: 'c' } }] } } },
  strategies: { local_agents: [{ alias: 'Writer', agent_ref: 'writer' }, { alias: 'Careful', agent_ref: 'careful' }], orchestration: { pattern: { type: 'strategies', Agents: ['Writer', 'Careful'], Selection: { Type: 'sequential' } } } },
};
/** Orchestrators that run their own model turn (`$self`), and a plain agent. */
const OWN_TURN: Record<string, FrontMatter> = {
  graph: { orchestration: { pattern: { type: 'graph', nodes: [{ id: 'n1', agent_ref: 'writer' }], edges: [{ from: '$self', to: 'n1' }] } } },
  swarm: { orchestration: { pattern: { type: 'swarm', agents: [{ ref: 'helper' }] } } },
  'agf.react': {},
};

/** Each field of an own model turn, as declared, and the diagnostic it gets on a members-only orchestrator. */
const OWN_TURN_FIELDS: { field: string; front: FrontMatter; code: 'AGF190' | 'AGL052' }[] = [
  { field: 'tools.refs', front: { tools: { tool_choice: 'auto', refs: [{ ref: 'echo' }] } }, code: 'AGL052' },
  { field: 'tools.tool_choice', front: { tools: { tool_choice: 'required', refs: [] } }, code: 'AGF190' },
  { field: 'knowledge.refs', front: { knowledge: { refs: [{ ref: 'facts' }] } }, code: 'AGL052' },
  { field: 'knowledge.retrieval', front: { knowledge: { refs: [], retrieval: { max_chunks: 3 } } }, code: 'AGF190' },
  { field: 'runtime.temperature', front: { runtime: { temperature: 0.2 } }, code: 'AGF190' },
  { field: 'runtime.top_p', front: { runtime: { top_p: 0.9 } }, code: 'AGF190' },
  { field: 'runtime.reasoning_effort', front: { runtime: { reasoning_effort: 'low' } }, code: 'AGF190' },
  { field: 'runtime.max_output_tokens', front: { runtime: { max_output_tokens: 100 } }, code: 'AGF190' },
  { field: 'orchestration.can_delegate', front: { orchestration: { can_delegate: true } }, code: 'AGL052' },
  { field: 'orchestration.allowed_delegates', front: { orchestration: { can_delegate: false, allowed_delegates: ['careful'] } }, code: 'AGL052' },
];

/** `base` with `extra` merged one level deep into each section. */
function merged(base: FrontMatter, extra: FrontMatter): FrontMatter {
  const out: FrontMatter = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    const b = out[k];
    out[k] = b && typeof b === 'object' && !Array.isArray(b) && v && typeof v === 'object' && !Array.isArray(v) ? { ...(b as FrontMatter), ...(v as FrontMatter) } : v;
  }
  return out;
}

const own = (ds: Diagnostic[]): Diagnostic[] => ds.filter((d) => d.code === 'AGF190' || d.code === 'AGL052');

describe('fields of an own model turn on an orchestrator', () => {
  const cases = Object.keys(MEMBERS_ONLY).flatMap((kind) => OWN_TURN_FIELDS.map((f) => [kind, f.field, f.code, f.front] as const));
  const defs = registry(cases.map(([kind, field, , front], i) => orchestrator(`o${i}-${kind.replace(/\W/g, '')}`, merged(MEMBERS_ONLY[kind], front))).concat(
    Object.entries(OWN_TURN).flatMap(([kind, base]) => OWN_TURN_FIELDS.map((f, j) => orchestrator(`own-${kind.replace(/\W/g, '')}-${j}`, merged(base, f.front))))));
  afterAll(() => defs.remove());

  it.each(cases.map(([kind, field, code], i) => [field, kind, code, i] as const))('`%s` on %s gives %s naming the field', (field, kind, code, i) => {
    const ds = own(defs.diagnostics(`o${i}-${kind.replace(/\W/g, '')}`));
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ code, field, severity: code === 'AGF190' ? 'error' : 'warning' });
    expect(ds[0].message).toContain(`\`${field}\` cannot apply to this agent`);
    expect(ds[0].message).toContain('its own model turn never runs');
  });

  it.each(Object.keys(OWN_TURN))('an agent that runs its own model turn (%s) gets none of them', (kind) => {
    OWN_TURN_FIELDS.forEach((_, j) => expect(own(defs.diagnostics(`own-${kind.replace(/\W/g, '')}-${j}`))).toEqual([]));
  });
});

/** The inherited fields, all declared on one orchestrator. */
const CEILINGS: FrontMatter = {
  runtime: { max_turns: 4, max_tool_calls: 3, retry_policy: { max_attempts: 2, backoff_seconds: 1 }, fallback_model: 'backup-model' },
  policies: { require_human_approval: true, allow_external_http: false, allowed_connectors: ['crm'] },
  guardrails: { tool_input: [{ ref: 'tool-scan', on_fail: 'apply' }], tool_output: [{ ref: 'tool-scan', on_fail: 'redact' }], tool_calls: { require_user_confirmation_for: ['echo'], block_tools_on_input_fail: true } },
  orchestration: { can_delegate: false },
};

describe('fields inherited by the members of an orchestrator whose own turn never runs', () => {
  const defs = registry([
    ...Object.entries(MEMBERS_ONLY).map(([kind, front]) => orchestrator(`gov-${kind.replace(/\W/g, '')}`, merged(front, CEILINGS))),
    orchestrator('plain-pipeline', MEMBERS_ONLY['agf.sequential']),
  ]);
  afterAll(() => defs.remove());

  it.each(Object.keys(MEMBERS_ONLY))('%s: every member gets the ceilings, and the defaults where it declares none', (kind) => {
    const { bundle, diagnostics } = compiled(defs, `gov-${kind.replace(/\W/g, '')}`);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const w = bundle.agents.writer;
    const c = bundle.agents.careful;
    // policies: ceilings
    expect(w.policies).toMatchObject({ require_human_approval: true, allow_external_http: false, allowed_connectors: [] });
    expect(c.policies).toMatchObject({ require_human_approval: true, allow_external_http: false, allowed_connectors: ['crm'] });
    // limits: the lower of the two
    expect(w.runtime).toMatchObject({ max_turns: 4, max_tool_calls: 3 });
    expect(c.runtime).toMatchObject({ max_turns: 2, max_tool_calls: 1 });
    // defaults: the member's own wins
    expect(w.runtime.retry_policy).toEqual({ max_attempts: 2, backoff_seconds: 1 });
    expect(w.runtime.fallback_model?.model_id).toBe('backup-model');
    expect(c.runtime.retry_policy).toEqual({ max_attempts: 5, backoff_seconds: 3 });
    expect(c.runtime.fallback_model?.model_id).toBe('own-backup-model');
    // guardrails on every member's tool calls; confirmation for the members that have the tool
    for (const m of [w, c]) {
      expect(m.guardrails.tool_input.map((g) => g.ref)).toEqual(['tool-scan']);
      expect(m.guardrails.tool_output.map((g) => g.ref)).toEqual(['tool-scan']);
      expect(m.guardrails.tool_calls.block_tools_on_input_fail).toBe(true);
    }
    expect(w.guardrails.tool_calls.require_user_confirmation_for).toEqual(['echo']);
    expect(c.guardrails.tool_calls.require_user_confirmation_for).toEqual([]);
    // can_delegate: false is a ceiling
    expect(w.orchestration.can_delegate).toBe(false);
  });

  it('the members\' own bundles, and another orchestrator\'s bundle, are unchanged', () => {
    for (const [root, id] of [['writer', 'writer'], ['careful', 'careful'], ['plain-pipeline', 'writer'], ['plain-pipeline', 'careful']]) {
      const a = compiled(defs, root).bundle.agents[id];
      expect(a.policies.require_human_approval).toBe(false);
      expect(a.guardrails.tool_input).toEqual([]);
      expect(a.runtime.max_tool_calls).toBe(id === 'careful' ? 1 : undefined);
    }
    expect(compiled(defs, 'plain-pipeline').bundle.agents.writer.orchestration.can_delegate).toBe(true);
    // and so are their content hashes: the inherited entry is a different payload
    const gov = compiled(defs, 'gov-agfsequential').bundle.agents.writer.content_hash;
    expect(compiled(defs, 'plain-pipeline').bundle.agents.writer.content_hash).toBe(compiled(defs, 'writer').bundle.agents.writer.content_hash);
    expect(gov).not.toBe(compiled(defs, 'writer').bundle.agents.writer.content_hash);
  });

  it('the orchestrator keeps what it declares in its own entry', () => {
    const o = compiled(defs, 'gov-agfsequential').bundle.agents['gov-agfsequential'];
    expect(o.policies.require_human_approval).toBe(true);
    expect(o.runtime.max_tool_calls).toBe(3);
  });
});

function compiled(defs: Definitions, root: string): { bundle: CompiledBundle; diagnostics: Diagnostic[] } {
  const diagnostics = defs.diagnostics(root);
  return { bundle: defs.compile(root), diagnostics };
}

describe('nested orchestrators', () => {
  const defs = registry([
    orchestrator('inner', merged(MEMBERS_ONLY['agf.parallel'], { runtime: { max_tool_calls: 5, retry_policy: { max_attempts: 7, backoff_seconds: 2 } }, policies: { allowed_connectors: ['crm', 'erp'] } })),
    orchestrator('outer', {
      local_agents: [{ alias: 'i', agent_ref: 'inner' }, { alias: 'w', agent_ref: 'writer' }],
      execution_policy: { id: 'agf.sequential', config: { steps: [{ agent: 'i' }, { agent: 'w' }] } },
      runtime: { max_tool_calls: 2, retry_policy: { max_attempts: 3, backoff_seconds: 1 } },
      policies: { require_human_approval: true, allowed_connectors: ['erp'] },
    }),
  ]);
  afterAll(() => defs.remove());

  it('ceilings combine to the strictest, the nearest orchestrator\'s default wins', () => {
    const b = defs.compile('outer');
    for (const id of ['writer', 'careful']) {
      expect(b.agents[id].policies.require_human_approval).toBe(true);
      expect(b.agents[id].runtime.max_tool_calls).toBe(id === 'careful' ? 1 : 2);
    }
    expect(b.agents.careful.policies.allowed_connectors).toEqual(['erp']);
    // writer runs under inner (7 attempts) and directly under outer: in one bundle it has one entry, the nearest default of any path
    expect(b.agents.writer.runtime.retry_policy).toEqual({ max_attempts: 7, backoff_seconds: 2 });
    expect(b.agents.careful.runtime.retry_policy).toEqual({ max_attempts: 5, backoff_seconds: 3 });
    // the inner orchestrator, a member of outer, carries outer's ceiling too
    expect(b.agents.inner.policies.require_human_approval).toBe(true);
    // compiled on its own, inner hands down only its own fields
    const alone = defs.compile('inner');
    expect(alone.agents.writer.policies.require_human_approval).toBe(false);
    expect(alone.agents.writer.runtime.max_tool_calls).toBe(5);
  });
});

describe('what cannot be inherited is refused', () => {
  const defs = registry([
    orchestrator('eu-pipeline', { local_agents: [{ alias: 'e', agent_ref: 'eu-member' }], execution_policy: { id: 'agf.sequential', config: { steps: [{ agent: 'e' }] } }, runtime: { fallback_model: 'us-backup-model' } }),
    orchestrator('confirming', { ...MEMBERS_ONLY['agf.sequential'], guardrails: { tool_calls: { require_user_confirmation_for: ['echo', 'no-such-tool'] } } }),
  ]);
  afterAll(() => defs.remove());

  it('a fallback model outside a member\'s data_residency: AGF140 naming both', () => {
    const errs = defs.diagnostics('eu-pipeline').filter((d) => d.severity === 'error');
    expect(errs).toEqual([expect.objectContaining({ code: 'AGF140', field: 'runtime.fallback_model', message: expect.stringContaining('`eu-member` would inherit runtime.fallback_model `us-backup-model` from `eu-pipeline`') })]);
  });

  it('require_user_confirmation_for on an orchestrator names registered tools its members call (AGF018 otherwise)', () => {
    const errs = defs.diagnostics('confirming').filter((d) => d.severity === 'error');
    expect(errs).toEqual([expect.objectContaining({ code: 'AGF018', field: 'guardrails.tool_calls.require_user_confirmation_for[1]', message: expect.stringContaining('`no-such-tool` is not a registered tool') })]);
  });
});
