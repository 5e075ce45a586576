/**
 * The enforcement inventory covers every field the compiler accepts for an agent (walked from
 * AGENT_SCHEMA), and a declared field the runtime does not enforce is an AGL030 warning naming it.
 */
import * as path from 'path';
import { AGENT_SCHEMA } from '../../src/compiler/schemas';
import { AGENT_FIELDS, unenforcedFields } from '../../src/compiler/enforcement';
import { validatePaths } from '../../src/compiler';

type S = Record<string, unknown>;

/** Every leaf field path of a schema: closed objects are walked, lists of closed objects as `x[]`. */
function leafPaths(s: S, p = '', out: string[] = []): string[] {
  const items = s.items as S | undefined;
  if (s.properties && s.additionalProperties === false) {
    for (const [k, v] of Object.entries(s.properties as Record<string, S>)) leafPaths(v, p ? `${p}.${k}` : k, out);
  } else if (s.type === 'array' && items?.properties && items.additionalProperties === false) {
    leafPaths(items, `${p}[]`, out);
  } else {
    out.push(p);
  }
  return out;
}

describe('enforcement inventory', () => {
  const fields = leafPaths(AGENT_SCHEMA);

  it('classifies every field the agent schema accepts (add a new field to src/compiler/enforcement.ts)', () => {
    const missing = fields.filter((f) => !AGENT_FIELDS[f]);
    expect(missing).toEqual([]);
    expect(fields.length).toBeGreaterThan(100);
  });

  it('lists no field the schema does not accept', () => {
    expect(Object.keys(AGENT_FIELDS).filter((f) => !fields.includes(f))).toEqual([]);
  });

  it('classifies the seven policy keys, with the four runtime policies enforced', () => {
    for (const k of ['pii_redaction', 'blocked_content', 'allowed_connectors', 'data_residency', 'require_human_approval', 'allow_external_http', 'audit_level']) {
      expect(AGENT_FIELDS[`policies.${k}`].status).toBe('enforced');
    }
  });

  it('policies the react loop enforces are warned on an orchestrator (its members apply their own)', () => {
    const doc = { orchestration: { pattern: { type: 'graph' } }, policies: { pii_redaction: true, blocked_content: [], audit_level: 'full', allow_external_http: false } };
    expect(unenforcedFields(doc)).toEqual([
      { at: ['policies'], fields: ['policies.pii_redaction', 'policies.audit_level'], notes: ['enforced in agf.react runs only: this agent orchestrates members, each applies its own policies'] },
    ]);
    expect(unenforcedFields({ policies: { pii_redaction: true, audit_level: 'full' } })).toEqual([]);
  });

  it('names every declared unenforced field, grouped by the object holding it, honouring warnWhen', () => {
    const doc = {
      runtime: { model: 'm', reasoning_effort: 'high' }, // enforced since issue 11: no warning
      memory: { mode: 'none' },
      state: { session_history: 'ephemeral', working_state: 'session' },
      knowledge: { refs: [{ ref: 'a' }, { ref: 'b', required: true, citations_required: false }] },
      observability: { tracing: { enabled: false, endpoint: 'http://x' }, logs: { enabled: true, level: 'info' } },
      policies: { pii_redaction: true, audit_level: 'full' },
    };
    const got = unenforcedFields(doc).map((u) => ({ at: u.at, fields: u.fields }));
    expect(got).toEqual([
      { at: ['observability', 'logs'], fields: ['observability.logs.enabled', 'observability.logs.level'] },
    ]);
  });

  it('loom validate reports AGL030 with the file, line and field for the customer-support example', () => {
    const dir = path.join(__dirname, '..', '..', 'examples', 'customer-support');
    const diags = validatePaths([dir]).filter((d) => d.code === 'AGL030');
    expect(diags.length).toBeGreaterThan(0);
    for (const d of diags) {
      expect(d.severity).toBe('warning');
      expect(d.line).toBeGreaterThan(0);
      expect(d.message).toMatch(/is declared but not enforced|are declared but not enforced/);
    }
    // The policies the runtime enforces are never in an AGL030 warning.
    expect(diags.map((d) => d.message).join('\n')).not.toMatch(/pii_redaction|blocked_content|allowed_connectors|data_residency|audit_level/);
  });
});
