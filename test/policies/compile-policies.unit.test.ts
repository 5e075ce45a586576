/**
 * What the compiler emits for the runtime policies: tools' `connector`/`region`, models' `region`,
 * `policies.runtime_pass` and `policies.audit_trail`, and AGF140 for a resource outside
 * `data_residency` (examples/customer-support, which declares every policy).
 */
import * as fs from 'fs';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import { EXAMPLE, tempRegistry } from '../compiler/helpers';

const ROOT_ID = 'customer-support-agent';

test('customer-support compiles its policies for the runtime pass', () => {
  const { bundle, diagnostics } = compileBundle(EXAMPLE, ROOT_ID);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const a = bundle!.agents[ROOT_ID];
  expect(a.policies).toMatchObject({ pii_redaction: true, blocked_content: ['legal_advice', 'medical_advice'], allowed_connectors: ['sharepoint', 'google_drive'], data_residency: 'eu', audit_level: 'full', runtime_pass: true, audit_trail: true });
  expect(a.runtime.model.region).toBe('eu-west-1');
  expect(a.tools.refs.find((t) => t.tool_id === 'search-product-kb')).toMatchObject({ connector: 'sharepoint', region: 'eu-west-1' });
});

test('AGF140: a model or tool outside data_residency is a hard error naming it', () => {
  const dir = tempRegistry(EXAMPLE);
  const edit = (file: string, from: string, to: string) => {
    const p = path.join(dir, file);
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace(from, to));
  };
  edit('models/claude-4-sonnet.model.md', 'region: eu-west-1', 'region: us-east-1');
  edit('tools/search-product-kb.tool.md', 'region: eu-west-1', 'region: ap-south-1');
  const { diagnostics } = compileBundle(dir, ROOT_ID);
  const agf140 = diagnostics.filter((d) => d.code === 'AGF140');
  expect(agf140.map((d) => [d.severity, d.field])).toEqual([
    ['error', 'runtime.model'],
    ['error', expect.stringMatching(/^tools\.refs/)],
  ]);
  expect(agf140[0].message).toContain('model `claude-4-sonnet` is in region `us-east-1`, outside `policies.data_residency: eu`');
  expect(agf140[1].message).toContain('tool `search-product-kb` is in region `ap-south-1`');
  fs.rmSync(dir, { recursive: true, force: true });
});
