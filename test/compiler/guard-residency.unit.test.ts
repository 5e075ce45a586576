/**
 * The compiler's checks of guardrail judges, collection backends, data residency and the
 * connector registry, each on real definitions compiled by the project's compiler: an llm
 * guardrail's judge model (AGF560), a collection backend type without a store here or a postgres
 * url with a password (AGF561), a collection backend or the tenant artifact store outside the
 * agent's residency (AGF562), connector names against tenant.md `connectors` (AGF013), and the
 * unconstrained-residency lint for regulated agents (AGL560).
 */
import { agentDefinitions, definition, Definitions, scripted, builtin, type AgentDef, type FrontMatter } from '../helpers/definitions';
import type { Diagnostic } from '../../src/compiled/types';

const echo = scripted({ turns: [{ content: 'ok' }] });

function diagnosticsOf(a: AgentDef, tenant?: FrontMatter): Diagnostic[] {
  const defs = new Definitions();
  if (tenant) defs.tenant(tenant);
  try {
    return defs.addAll(agentDefinitions(a)).diagnostics(a.agent_id);
  } finally {
    defs.remove();
  }
}
const codes = (ds: Diagnostic[], code: string): string[] => ds.filter((d) => d.code === code).map((d) => `${d.field}: ${d.message}`);

describe('llm guardrail judge model (AGF560)', () => {
  const judgeGuard = (model: string) => definition('guardrail', {
    guardrail_id: 'jb', version: '1.0.0', status: 'active', description: 'Jailbreak judge.', behaviour: { result_type: 'score' }, provider: { type: 'llm', config: { model, check: 'jailbreak' } },
  });
  const agent = (model: string, others: AgentDef['others'] = []): AgentDef => ({ agent_id: 'judged', model: echo, others: [judgeGuard(model), ...others], front: { guardrails: { input: [{ ref: 'jb', severity_threshold: 7, on_fail: 'block' }] } } });

  test('an unregistered judge model is an error naming it and the registered ones; a registered one is compiled into the guardrail', () => {
    expect(codes(diagnosticsOf(agent('no-such-judge')), 'AGF560')).toEqual([expect.stringMatching(/^guardrails.input\[0\].ref: guardrail `jb` judges with model `no-such-judge`, which is not registered; create models\/no-such-judge.model.md or set its provider.config.model to one of: scripted-test/)]);
    const defs = new Definitions().addAll(agentDefinitions(agent('judge', [scripted({ turns: [{ content: '{"score":0}' }] }, 'judge')])));
    const g = defs.compile('judged').agents.judged.guardrails.input[0];
    defs.remove();
    expect(g.provider).toMatchObject({ type: 'llm', config: { model: 'judge', check: 'jailbreak' }, model: { model_id: 'judge', provider: 'scripted' } });
  });
  test('a disabled judge is an error; a judge outside data_residency is AGF140', () => {
    expect(codes(diagnosticsOf(agent('judge', [scripted({}, 'judge', { status: 'disabled' })])), 'AGF560')).toEqual([expect.stringMatching(/which is disabled/)]);
    const eu = { ...agent('judge', [scripted({}, 'judge', { region: 'us-east-1' })]), front: { ...agent('judge').front, policies: { data_residency: 'eu' } } };
    expect(codes(diagnosticsOf(eu), 'AGF140')).toEqual([expect.stringMatching(/guardrail `jb` judges with model `judge` in region `us-east-1`, outside `policies.data_residency: eu`/)]);
  });
});

describe('collection backends (AGF561, AGF562)', () => {
  const collection = (backend: FrontMatter) => definition('collection', {
    collection_id: 'notes', version: '1.0.0', status: 'active', description: 'Notes.', scope: 'project', backend, writeback: { enabled: true, approval_required: true },
  });
  const agent = (backend: FrontMatter, policies: FrontMatter = {}): AgentDef => ({ agent_id: 'rememberer', model: echo, others: [collection(backend)], front: { memory: { mode: 'project', read_collections: ['notes'] }, policies } });
  const tenant = { tenant_id: 't', secrets: { 'notes-db': { env: 'NOTES_DB_PASSWORD' } } };

  test('a backend type without a store here is an error naming it and the supported ones', () => {
    expect(codes(diagnosticsOf(agent({ type: 'valkey', namespace: 'n' })), 'AGF561')).toEqual([
      'memory.read_collections[0]: collection `notes`: collection backend type `valkey` has no store in this runtime; write one of: store, memory, postgres, file (store and memory: the shared store) (collections/notes.collection.md `backend.type`)',
    ]);
  });
  test('postgres: needs a postgres url without a password (credentials_ref names it); the shared store takes no url', () => {
    expect(codes(diagnosticsOf(agent({ type: 'postgres' }), tenant), 'AGF561')).toEqual([expect.stringMatching(/backend type `postgres` needs `url`, e.g. `url: postgres:\/\/loom@db.internal:5432\/memory`/)]);
    expect(codes(diagnosticsOf(agent({ type: 'postgres', url: 'postgres://loom:hunter2@127.0.0.1:5432/notes' }), tenant), 'AGF561')).toEqual([expect.stringMatching(/backend.url holds a password: .*credentials_ref/)]);
    expect(codes(diagnosticsOf(agent({ type: 'postgres', url: 'file:///srv/notes' }), tenant), 'AGF561')).toEqual([expect.stringMatching(/backend.url is a file location but `type` is postgres/)]);
    expect(codes(diagnosticsOf(agent({ type: 'memory', url: 'postgres://loom@127.0.0.1/notes' }), tenant), 'AGF561')).toEqual([expect.stringMatching(/`url` and `credentials_ref` do not go with backend type `memory`/)]);
    const ok = diagnosticsOf(agent({ type: 'postgres', url: 'postgres://loom@127.0.0.1:5432/notes', credentials_ref: 'notes-db' }), tenant);
    expect(ok.filter((d) => d.severity === 'error')).toEqual([]);
  });
  test('an unresolved credentials_ref of a collection backend is AGF093 in the collection file', () => {
    const ds = diagnosticsOf(agent({ type: 'postgres', url: 'postgres://loom@127.0.0.1:5432/notes', credentials_ref: 'other-db' }), tenant);
    expect(ds.filter((d) => d.code === 'AGF093').map((d) => `${d.file.split('/').pop()} ${d.field}`)).toEqual(['notes.collection.md backend.credentials_ref']);
  });
  test('a backend region outside data_residency is an error; inside (a sub-region) is not', () => {
    expect(codes(diagnosticsOf(agent({ type: 'memory', region: 'us-east-1' }, { data_residency: 'eu' })), 'AGF562')).toEqual([
      'memory.read_collections[0]: collection `notes`\'s backend is in region `us-east-1`, outside `policies.data_residency: eu`; use a collection whose `backend.region` is in it',
    ]);
    expect(codes(diagnosticsOf(agent({ type: 'memory', region: 'eu-west-1' }, { data_residency: 'eu' })), 'AGF562')).toEqual([]);
  });
});

describe('the tenant artifact store and residency (AGF562)', () => {
  const agent = (artifacts: FrontMatter, policies: FrontMatter = {}): AgentDef => ({ agent_id: 'archivist', model: echo, front: { artifacts, policies } });
  const tenant = (region: string, residency?: string) => ({ tenant_id: 't', ...(residency ? { data_residency: residency } : {}), artifact_store: { type: 'file', url: 'file:///srv/artifacts', region } });

  test('an artifact store outside the residency (the agent\'s or the tenant default) refuses agents that store artifacts', () => {
    expect(codes(diagnosticsOf(agent({ enabled: true }, { data_residency: 'eu' }), tenant('us-east-1')), 'AGF562')).toEqual([
      expect.stringMatching(/^policies.data_residency: the tenant artifact store \(tenant.md `artifact_store`\) is in region `us-east-1`, outside `policies.data_residency: eu`/),
    ]);
    expect(codes(diagnosticsOf(agent({ enabled: true }), tenant('us-east-1', 'eu')), 'AGF562')).toHaveLength(1);
    expect(codes(diagnosticsOf(agent({ enabled: false }, { data_residency: 'eu' }), tenant('us-east-1')), 'AGF562')).toEqual([]);
    expect(codes(diagnosticsOf(agent({ enabled: true }, { data_residency: 'eu' }), tenant('eu-central-1')), 'AGF562')).toEqual([]);
  });
});

describe('connectors against the tenant\'s connector registry (AGF013)', () => {
  const tenant = { tenant_id: 't', connectors: { sharepoint: { description: 'Company SharePoint', region: 'eu-west-1' }, jira: null } };
  const agent = (allowed: string[], tools: AgentDef['tools'] = []): AgentDef => ({ agent_id: 'connected', model: echo, tools, front: { policies: { allowed_connectors: allowed } } });

  test('a well-formed name the registry does not hold is an error listing the registered ones', () => {
    expect(codes(diagnosticsOf(agent(['sharepoint', 'google_drive']), tenant), 'AGF013')).toEqual([
      'policies.allowed_connectors[1]: connector `google_drive` is not in the tenant\'s connector registry; register it under tenant.md `connectors` or use one of: jira, sharepoint',
    ]);
    expect(codes(diagnosticsOf(agent(['sharepoint', 'jira']), tenant), 'AGF013')).toEqual([]);
  });
  test('a tool reaching a connector the registry does not hold is an error at its reference', () => {
    expect(codes(diagnosticsOf(agent(['sharepoint'], [builtin('echo', { connector: 'salesforce' })]), tenant), 'AGF013')).toEqual([
      expect.stringMatching(/^tools.refs\[0\]: tool `echo`: connector `salesforce` is not in the tenant's connector registry/),
    ]);
  });
  test('without a registry a name is checked for its form only', () => {
    expect(codes(diagnosticsOf(agent(['google_drive', 'Share Point']), { tenant_id: 't' }), 'AGF013')).toEqual([expect.stringMatching(/^policies.allowed_connectors\[1\]: connector `Share Point` is not a valid connector identifier/)]);
  });
  test('tenant.md connectors problems are REG008 on their lines', () => {
    const ds = diagnosticsOf(agent([]), { tenant_id: 't', connectors: { 'Bad Name': {}, ok: { owner: 'x' } } });
    expect(ds.filter((d) => d.code === 'REG008').map((d) => d.message)).toEqual([
      expect.stringMatching(/connector name `Bad Name` must be a lowercase identifier/),
      expect.stringMatching(/unknown connector field `owner`; a connector has description and region/),
    ]);
  });
});

describe('unconstrained residency lint (AGL560)', () => {
  const agent = (policies: FrontMatter): AgentDef => ({ agent_id: 'regulated', model: echo, front: { policies } });
  test('a regulated agent (full audit, PII redaction) without residency and without a tenant default is warned', () => {
    expect(codes(diagnosticsOf(agent({ audit_level: 'full' }), { tenant_id: 't' }), 'AGL560')).toEqual([
      'policies: data residency is unconstrained: this agent (`audit_level: full`) declares no `policies.data_residency` and tenant.md sets no default `data_residency`; set one (e.g. `data_residency: eu`)',
    ]);
    expect(codes(diagnosticsOf(agent({ pii_redaction: true })), 'AGL560')).toEqual([expect.stringMatching(/\(`pii_redaction: true`\).*the registry has no tenant.md/)]);
  });
  test('a tenant default, the agent\'s own residency, or no regulated context: no warning', () => {
    expect(codes(diagnosticsOf(agent({ audit_level: 'full' }), { tenant_id: 't', data_residency: 'eu' }), 'AGL560')).toEqual([]);
    expect(codes(diagnosticsOf(agent({ audit_level: 'full', data_residency: 'us' })), 'AGL560')).toEqual([]);
    expect(codes(diagnosticsOf(agent({ audit_level: 'standard' })), 'AGL560')).toEqual([]);
  });
});
