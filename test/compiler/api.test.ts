/** Public API: canonical output, hashes, emission details, publish rules, schema files (the CLI's validate and compile: test/cli/validate-compile.test.ts). */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  canonicalJson, compileBundle, compareSemver, formatDiagnostic, publishBundle, sha256, validatePaths, loadRegistry,
} from '../../src/compiler';
import { schemaFileText, KIND_SCHEMAS } from '../../src/compiler/schemas';
import { BASE, EXAMPLE, ROOT, tempRegistry } from './helpers';

describe('canonical output', () => {
  it('canonicalJson sorts keys and has no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 'x y' }], u: undefined })).toBe('{"a":[{"c":"x y","d":2}],"b":1}');
  });

  it('is byte-identical for identical input, also from a copied registry', () => {
    const a = compileBundle(EXAMPLE, 'customer-support-agent');
    const b = compileBundle(tempRegistry(EXAMPLE), 'customer-support-agent');
    expect(a.bundle).toBeDefined();
    expect(canonicalJson(a.bundle)).toBe(canonicalJson(b.bundle));
    const agent = a.bundle!.agents['customer-support-agent'];
    const { content_hash, ...rest } = agent;
    expect(content_hash).toBe(sha256(canonicalJson(rest)));
    const { content_hash: bh, ...body } = a.bundle!;
    expect(bh).toBe(sha256(canonicalJson(body)));
  });

  it('changes the hash when the input changes', () => {
    const dir = tempRegistry(EXAMPLE);
    const f = path.join(dir, 'agents', 'customer-support-agent.agent.md');
    const h1 = compileBundle(dir, 'customer-support-agent').bundle!.content_hash;
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('Never invent policies', 'Never make up policies'));
    const h2 = compileBundle(dir, 'customer-support-agent').bundle!.content_hash;
    expect(h2).not.toBe(h1);
  });
});

describe('emitted payload', () => {
  const bundle = compileBundle(EXAMPLE, 'customer-support-agent').bundle!;
  const a = bundle.agents['customer-support-agent'];
  it('carries the body sections verbatim and in order', () => {
    expect(a.sections.map((s) => s.name)).toEqual(['Purpose', 'System behavior', 'Rules', 'Escalation', 'Examples', 'Non-goals', 'Output style notes']);
    expect(a.instructions.startsWith('# Purpose\nResolve first-line customer questions')).toBe(true);
    expect(a.instructions).toContain('# Rules\n- Never invent policies, prices or release dates.\n- Never ask');
  });
  it('strips editorial blocks and never carries secrets', () => {
    const text = JSON.stringify(a);
    for (const k of ['"ui"', '"notes"', '"release"', '"localization"', '"evaluation"', 'editor_notes', 'short_description']) expect(text).not.toContain(k);
    expect(text).not.toMatch(/sk-[A-Za-z0-9]{10}/);
  });
  it('resolves tools through the role ceilings and overrides', () => {
    const send = a.tools.refs.find((t) => t.tool_id === 'send-email')!;
    expect(send).toMatchObject({ approval_required: true, max_calls_per_run: 1, side_effects: true, sensitive_fields: ['to'] });
    const ticket = a.tools.refs.find((t) => t.tool_id === 'create-ticket')!;
    expect(ticket).toMatchObject({ approval_required: true, max_calls_per_run: 2, sensitive_fields: ['account_id'] });
    expect(a.role?.role_id).toBe('customer-support-role');
  });
  it('injects model, knowledge, collections and guardrail configuration', () => {
    expect(a.runtime.model).toMatchObject({ model_id: 'claude-4-sonnet', provider: 'scripted' });
    expect(a.runtime.model.scripted?.rules?.length).toBeGreaterThan(0);
    expect(a.runtime.fallback_model?.model_id).toBe('claude-4-haiku');
    expect(a.knowledge.refs.find((k) => k.kb_id === 'brand-guidelines')).toMatchObject({ required: true, citations_required: true });
    expect(a.memory.read_collections[0]).toMatchObject({ collection_id: 'customer-preferences', scope: 'project', writeback: { enabled: true, approval_required: true } });
    expect(a.guardrails.input[1]).toMatchObject({ ref: 'prompt-injection-scan', result_type: 'score', severity_threshold: 7, on_fail: 'escalate' });
  });
  it('emits the tool manifest for can_be_invoked_as_tool agents', () => {
    expect(a.tool_manifest).toMatchObject({ name: 'customer-support-agent', intents: ['support_request', 'billing_question', 'password_reset'], examples: ['help', 'support', 'billing', 'reset password'] });
    expect(a.tool_manifest!.description).toContain('Use this agent for any customer support request');
    expect(a.tool_manifest!.parameters).toEqual(a.interface.input.schema);
  });
  it('compiles the closure of agents (agent tools)', () => {
    const dir = tempRegistry();
    fs.writeFileSync(path.join(dir, 'agents', 'host.agent.md'), fs.readFileSync(path.join(BASE, 'agents', 'worker.agent.md'), 'utf8')
      .replace('agent_id: "worker"', 'agent_id: "host"').replace('role: "reader-role"', 'role: "wide-role"').replace('refs: []', 'refs: [{ ref: ask-worker }]'));
    const r = compileBundle(dir, 'host');
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(Object.keys(r.bundle!.agents)).toEqual(['host', 'worker']);
  });
  it('rejects a disabled agent in the closure (AGF031) and unknown agent ids (LOOM009)', () => {
    const dir = tempRegistry();
    fs.writeFileSync(path.join(dir, 'agents', 'host.agent.md'), fs.readFileSync(path.join(BASE, 'agents', 'worker.agent.md'), 'utf8')
      .replace('agent_id: "worker"', 'agent_id: "host"').replace('orchestration:', 'local_agents: [{ alias: o, agent_ref: off-agent }]\norchestration:'));
    const r = compileBundle(dir, 'host');
    expect(r.bundle).toBeUndefined();
    expect(r.diagnostics.some((d) => d.code === 'AGF031')).toBe(true);
    const u = compileBundle(dir, 'nobody');
    expect(u.bundle).toBeUndefined();
    expect(u.diagnostics[0].code).toBe('LOOM009');
  });
  it('formats diagnostics as path:line:col: severity CODE: message', () => {
    const d = { file: 'agents/a.agent.md', line: 3, column: 5, severity: 'error' as const, code: 'AGF007', field: 'tools.refs[0].ref', message: 'tool `x` is not registered' };
    expect(formatDiagnostic(d)).toMatch(/^agents\/a\.agent\.md:3:5: error AGF007: tool `x` is not registered/);
  });
});

describe('publish', () => {
  it('stores, accepts identical re-publish, refuses changed hash / non-increasing version / lineage change', () => {
    const dir = tempRegistry(EXAMPLE);
    const f = path.join(dir, 'agents', 'customer-support-agent.agent.md');
    const b1 = compileBundle(dir, 'customer-support-agent').bundle!;
    const p1 = publishBundle(dir, b1);
    expect(p1.ok).toBe(true);
    expect(p1.file).toBe(path.join(dir, '.loom', 'published', 'customer-support-agent', '1.2.0.json'));
    expect(JSON.parse(fs.readFileSync(p1.file!, 'utf8')).content_hash).toBe(b1.content_hash);
    expect(publishBundle(dir, b1)).toMatchObject({ ok: true, unchanged: true });
    // same version, different content
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('Never invent policies', 'Never make up policies'));
    const b2 = compileBundle(dir, 'customer-support-agent').bundle!;
    const p2 = publishBundle(dir, b2);
    expect(p2.ok).toBe(false);
    expect(p2.diagnostics[0].code).toBe('AGF060');
    expect(p2.diagnostics[0].line).toBe(4);
    // lower version
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('version: "1.2.0"', 'version: "1.1.9"'));
    const p3 = publishBundle(dir, compileBundle(dir, 'customer-support-agent').bundle!);
    expect(p3.diagnostics[0].code).toBe('AGF061');
    // higher version works
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('version: "1.1.9"', 'version: "1.3.0"'));
    expect(publishBundle(dir, compileBundle(dir, 'customer-support-agent').bundle!).ok).toBe(true);
    // lineage: a payload of another agent_id in this agent's folder
    const other = { ...b1, root: 'someone-else' };
    fs.writeFileSync(path.join(dir, '.loom', 'published', 'customer-support-agent', '0.0.1.json'), JSON.stringify(other));
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('version: "1.3.0"', 'version: "1.4.0"'));
    const p5 = publishBundle(dir, compileBundle(dir, 'customer-support-agent').bundle!);
    expect(p5.diagnostics[0].code).toBe('AGF062');
  });
  it('compares semver by precedence', () => {
    expect(compareSemver('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compareSemver('1.0.0-rc.1', '1.0.0')).toBeLessThan(0);
    expect(compareSemver('2.0.0', '2.0.0')).toBe(0);
  });
});

describe('schemas and docs', () => {
  it('schemas/*.schema.json match the compiler schemas', () => {
    for (const kind of Object.keys(KIND_SCHEMAS)) {
      expect(fs.readFileSync(path.join(ROOT, 'schemas', `${kind}.schema.json`), 'utf8')).toBe(schemaFileText(kind));
    }
  });
  it('docs/diagnostics.md documents every code', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'diagnostics.md'), 'utf8');
    const { CODES } = require('../../src/compiler/codes') as typeof import('../../src/compiler/codes');
    for (const c of Object.keys(CODES)) expect(doc).toContain(`\`${c}\``);
  });
  it('examples validate clean', () => {
    const ds = validatePaths([EXAMPLE]);
    expect(ds.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loadRegistry(EXAMPLE).entries.agent.size).toBeGreaterThan(0);
  });
});
