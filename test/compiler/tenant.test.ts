/**
 * The registry's tenant.md: validated on its own lines (REG008), credentials_ref resolved against its
 * secret store (AGF093; the compiled agent carries where a worker reads each reference, never a
 * value), human_queue targets checked against its queue registry (AGF094, AGL042 without one), and
 * its defaults (artifact store, telemetry, residency) injected into the compiled agent.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { compileBundle, canonicalJson, validatePaths } from '../../src/compiler';
import { BODY, baseAgent, tempRegistry } from './helpers';

const TOKEN_VALUE = 'sk-live-tenant-test-9f8e7d';

function withAgent(reg: string, id: string, extra: Record<string, unknown>): void {
  fs.writeFileSync(path.join(reg, 'agents', `${id}.agent.md`), `---\n${YAML.stringify({ ...baseAgent(id), ...extra })}---\n${BODY}`);
}

const tracing = (ref: string) => ({ observability: { tracing: { enabled: true, exporter: 'otlp', endpoint: 'https://otel.acme.internal:4317', auth: { type: 'bearer', credentials_ref: ref } } } });

test('tenant defaults and secret references are injected into the compiled agent; the secret value never is', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), `---
tenant_id: acme
data_residency: eu
artifact_store: { type: s3, bucket: acme-artifacts, credentials_ref: artifact-key, encryption: "aws:kms" }
telemetry: { exporter: otlp, endpoint: "https://otel.acme.internal:4318", credentials_ref: otel-collector-token }
human_queues:
  billing-disputes: { description: "Disputed charges", answered_by: "Billing team" }
secrets:
  otel-collector-token: { env: OTEL_COLLECTOR_TOKEN }
  artifact-key: { file: /run/secrets/artifact-key }
---
`);
  withAgent(reg, 'acme-agent', { ...tracing('otel-collector-token'), orchestration: { escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'billing-disputes' } }] } });
  process.env.OTEL_COLLECTOR_TOKEN = TOKEN_VALUE;
  try {
    const { bundle, diagnostics } = compileBundle(reg, 'acme-agent');
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const a = bundle!.agents['acme-agent'];
    expect(a.tenant).toEqual({
      tenant_id: 'acme',
      data_residency: 'eu',
      artifact_store: { type: 's3', bucket: 'acme-artifacts', credentials_ref: 'artifact-key', encryption: 'aws:kms' },
      telemetry: { exporter: 'otlp', endpoint: 'https://otel.acme.internal:4318', credentials_ref: 'otel-collector-token' },
      // The s3 store's access key is read by the worker that writes the artifacts (decision 293).
      secrets: { 'artifact-key': { file: '/run/secrets/artifact-key' }, 'otel-collector-token': { env: 'OTEL_COLLECTOR_TOKEN' } },
    });
    // "If omitted, the tenant's default residency setting applies."
    expect(a.policies.data_residency).toBe('eu');
    expect(canonicalJson(bundle)).not.toContain(TOKEN_VALUE);
  } finally {
    delete process.env.OTEL_COLLECTOR_TOKEN;
  }
});

test('tenant defaults the runtime does not read yet are AGL030 warnings on their own lines, naming the field', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), [
    '---',
    'tenant_id: acme',
    'artifact_store: { type: gcs, bucket: acme-artifacts }',
    'telemetry: { exporter: otlp, endpoint: "https://otel.acme.internal:4318", compression: gzip }',
    '---',
    '',
  ].join('\n'));
  const ws = validatePaths([reg]).filter((d) => d.code === 'AGL030' && path.basename(d.file) === 'tenant.md');
  expect(ws.map((d) => `${d.line} ${d.severity} ${d.field}`)).toEqual(['3 warning artifact_store', '4 warning telemetry.compression']);
  expect(ws[0].message).toBe('`artifact_store.type: gcs` is compiled but not used at run time: this runtime writes artifacts to `store`, `file`, `postgres`, `s3` stores only, so they go to the store every worker shares (LOOM_STORE_URL)');
  expect(ws[1].message).toBe('`telemetry.compression` is compiled but not used at run time (fields read: exporter, endpoint, credentials_ref, sampling_rate, region; headers, protocol and resource attributes come from the worker\'s OTEL_* variables)');
  // the telemetry the worker reads at run time (decision 403) warns about nothing
  fs.writeFileSync(path.join(reg, 'tenant.md'), '---\ntenant_id: acme\ndata_residency: eu\ntelemetry: { exporter: otlp, endpoint: "http://127.0.0.1:4318", sampling_rate: 0.5, region: eu-west-1 }\n---\n');
  expect(validatePaths([reg]).filter((d) => path.basename(d.file) === 'tenant.md')).toEqual([]);
});

test('the tenant telemetry\'s credentials_ref reaches every compiled agent\'s secret locations, used by it or not (decision 403)', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), '---\ntenant_id: acme\ntelemetry: { exporter: otlp, endpoint: "https://otel.acme.internal:4318", credentials_ref: otel-collector-token }\nsecrets:\n  otel-collector-token: { env: OTEL_COLLECTOR_TOKEN }\n  unused: { env: UNUSED }\n---\n');
  withAgent(reg, 'plain-agent', {});
  const { bundle, diagnostics } = compileBundle(reg, 'plain-agent');
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(bundle!.agents['plain-agent'].tenant?.secrets).toEqual({ 'otel-collector-token': { env: 'OTEL_COLLECTOR_TOKEN' } });
});

test('tenant telemetry problems are REG008: an otlp exporter needs an http(s) endpoint, sampling_rate is 0..1, exporter is otlp, console or none', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), '---\ntenant_id: acme\ntelemetry: { exporter: grpc, endpoint: "otel:4317", sampling_rate: 2 }\n---\n');
  expect(validatePaths([reg]).filter((d) => d.code === 'REG008').map((d) => d.message)).toEqual([
    '`telemetry.exporter` must be otlp, console or none (got `grpc`)',
    '`telemetry.sampling_rate` must be a number from 0 to 1',
  ]);
  fs.writeFileSync(path.join(reg, 'tenant.md'), '---\ntenant_id: acme\ntelemetry: { exporter: otlp, endpoint: "otel:4317" }\n---\n');
  expect(validatePaths([reg]).filter((d) => d.code === 'REG008').map((d) => `${d.line} ${d.message}`)).toEqual([
    '3 `telemetry.endpoint` must be the collector\'s OTLP/HTTP base URL, e.g. `endpoint: "https://otel.acme.internal:4318"` (the worker appends /v1/traces, /v1/metrics, /v1/logs)',
  ]);
});

test('artifact_store of a type the runtime writes to (store, file, postgres) is not warned; its password ref reaches the agent', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), [
    '---',
    'tenant_id: acme',
    'artifact_store: { type: postgres, url: "postgres://loom@db.internal:5432/artifacts", credentials_ref: artifact-db, encryption: aes-256-gcm }',
    'secrets:',
    '  artifact-db: { env: ARTIFACT_DB_PASSWORD }',
    '  unused: { env: UNUSED_SECRET }',
    '---',
    '',
  ].join('\n'));
  withAgent(reg, 'pg-artifacts', {});
  const { bundle, diagnostics } = compileBundle(reg, 'pg-artifacts');
  expect(diagnostics.filter((d) => path.basename(d.file) === 'tenant.md')).toEqual([]);
  expect(bundle!.agents['pg-artifacts'].tenant).toEqual({
    tenant_id: 'acme',
    artifact_store: { type: 'postgres', url: 'postgres://loom@db.internal:5432/artifacts', credentials_ref: 'artifact-db', encryption: 'aes-256-gcm' },
    secrets: { 'artifact-db': { env: 'ARTIFACT_DB_PASSWORD' } },
  });
  for (const line of ['artifact_store: { type: store }', 'artifact_store: { type: file, url: "file:///srv/loom/artifacts" }']) {
    fs.writeFileSync(path.join(reg, 'tenant.md'), `---\ntenant_id: acme\n${line}\n---\n`);
    expect({ line, ds: validatePaths([reg]).filter((d) => path.basename(d.file) === 'tenant.md') }).toEqual({ line, ds: [] });
  }
});

test('artifact_store problems are REG008 on their lines; fields it does not read are AGL030 warnings naming them', () => {
  const reg = tempRegistry();
  const check = (body: string[]): string[] => {
    fs.writeFileSync(path.join(reg, 'tenant.md'), ['---', 'tenant_id: acme', ...body, '---', ''].join('\n'));
    return validatePaths([reg]).filter((d) => path.basename(d.file) === 'tenant.md').map((d) => `${d.line} ${d.code} ${d.field} ${d.message}`);
  };
  expect(check(['artifact_store: { type: postgres, url: "postgres://loom:hunter2@db:5432/art" }'])).toEqual([
    '3 REG008 artifact_store.url `artifact_store.url` holds a password: tenant.md is compiled into every agent, so name the password with `credentials_ref` (declared under `secrets`) and write postgres://loom@db:5432/art',
  ]);
  expect(check(['artifact_store:', '  type: postgres'])).toEqual(['3 REG008 artifact_store `artifact_store.url` is required for `type: postgres`, e.g. `url: postgres://loom@db.internal:5432/artifacts`']);
  expect(check(['artifact_store:', '  type: file', '  url: "postgres://loom@db/art"'])).toEqual([
    '5 REG008 artifact_store.url `artifact_store.url` is a postgres location but `type` is file: write e.g. `file:///srv/loom/artifacts`',
  ]);
  expect(check(['artifact_store:', '  type: file', '  url: relative/folder'])).toEqual([
    '5 REG008 artifact_store.url `artifact_store.url` must be a file:/// URL (an absolute folder every worker and the CLI see), e.g. `file:///srv/loom/artifacts`',
  ]);
  expect(check(['artifact_store:', '  type: postgres', '  url: "mysql://db/art"'])[0]).toMatch(/^5 REG008 artifact_store.url `artifact_store.url`: has the unsupported scheme 'mysql'/);
  expect(check(['artifact_store:', '  type: store', '  url: "file:///x"'])).toEqual([
    '5 REG008 artifact_store.url `artifact_store.url` does not go with `type: store` (the shared LOOM_STORE_URL store); use `type: file` or `type: postgres` with a url',
  ]);
  expect(check(['artifact_store:', '  type: postgres', '  url: "postgres://loom@db/art"', '  bucket: b', '  encryption: "aws:kms"'])).toEqual([
    '6 AGL030 artifact_store.bucket `artifact_store.bucket` is compiled but not used at run time: a postgres artifact store is located by `url` only (fields read: type, url, credentials_ref, encryption, region)',
    '7 AGL030 artifact_store.encryption `artifact_store.encryption: aws:kms` is compiled but not used at run time: only `aes-256-gcm` (every artifact sealed with the codec key) is applied; otherwise only `restricted` artifacts are sealed',
  ]);
});

test('artifact_store type s3 (decision 293): by bucket/prefix/endpoint/region or url, its key behind credentials_ref; encryption aws:kms stays AGL030; problems are REG008', () => {
  const reg = tempRegistry();
  const check = (body: string[]): string[] => {
    fs.writeFileSync(path.join(reg, 'tenant.md'), ['---', 'tenant_id: acme', ...body, '---', ''].join('\n'));
    return validatePaths([reg]).filter((d) => path.basename(d.file) === 'tenant.md').map((d) => `${d.line} ${d.code} ${d.field} ${d.message}`);
  };
  expect(check(['artifact_store: { type: s3, bucket: acme-artifacts, prefix: loom, endpoint: "https://minio.internal:9000", region: eu-west-1, credentials_ref: k }', 'secrets:', '  k: { env: ART_KEY }'])).toEqual([]);
  expect(check(['artifact_store: { type: s3, url: "s3://acme-artifacts/loom?endpoint=https://minio.internal:9000" }'])).toEqual([]);
  expect(check(['artifact_store:', '  type: s3', '  bucket: acme-artifacts', '  encryption: "aws:kms"', '  storage_class: GLACIER'])).toEqual([
    '6 AGL030 artifact_store.encryption `artifact_store.encryption: aws:kms` is compiled but not used at run time: only `aes-256-gcm` (every artifact sealed with the codec key) is applied; otherwise only `restricted` artifacts are sealed',
    '7 AGL030 artifact_store.storage_class `artifact_store.storage_class` is compiled but not used at run time: a s3 artifact store is located by `bucket` (with `prefix`, `endpoint`, `region`) or `url` (fields read: type, url, credentials_ref, encryption, bucket, prefix, endpoint, region)',
  ]);
  expect(check(['artifact_store:', '  type: s3'])).toEqual([
    '3 REG008 artifact_store `artifact_store.bucket` is required for `type: s3`, e.g. `bucket: acme-artifacts` (with `endpoint: https://minio.internal:9000` for an S3-compatible service), or a `url` like `s3://acme-artifacts/loom?endpoint=https://minio.internal:9000`',
  ]);
  expect(check(['artifact_store:', '  type: s3', '  url: "s3://a-b/x"', '  bucket: a-b'])).toEqual([
    '6 REG008 artifact_store.bucket `artifact_store.bucket` does not go with `url`: locate an s3 store by `bucket` (with `prefix`, `endpoint`, `region`) or by `url`, not both',
  ]);
  expect(check(['artifact_store:', '  type: s3', '  bucket: Acme_Artifacts'])).toEqual([
    "5 REG008 artifact_store.bucket `artifact_store`: names 'Acme_Artifacts', not an S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)",
  ]);
  expect(check(['artifact_store:', '  type: s3', '  bucket: acme-artifacts', '  endpoint: "http://AKID:hunter2@minio:9000"'])[0]).toMatch(/^5 REG008 artifact_store.bucket `artifact_store`: holds credentials in its endpoint. S3 credentials are never in the URL/);
  expect(check(['artifact_store:', '  type: s3', '  url: "s3://AKID:hunter2@acme-artifacts/x"']).join('\n')).not.toContain('hunter2');
  expect(check(['artifact_store:', '  type: s3', '  url: "postgres://loom@db/art"'])).toEqual([
    '5 REG008 artifact_store.url `artifact_store.url` is a postgres location but `type` is s3: write e.g. `s3://acme-artifacts/loom?endpoint=https://minio.internal:9000`',
  ]);
});

test('an agent that declares its own residency keeps it', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), '---\ntenant_id: acme\ndata_residency: eu\n---\n');
  withAgent(reg, 'us-agent', { policies: { data_residency: 'us' } });
  expect(compileBundle(reg, 'us-agent').bundle!.agents['us-agent'].policies.data_residency).toBe('us');
});

test('an unresolved credentials_ref is a hard error naming the ref and the declared ones', () => {
  const reg = tempRegistry();
  withAgent(reg, 'typo-agent', tracing('otel-colector-token'));
  const { bundle, diagnostics } = compileBundle(reg, 'typo-agent');
  expect(bundle).toBeUndefined();
  const d = diagnostics.find((x) => x.code === 'AGF093')!;
  expect(d.message).toBe('credentials_ref `otel-colector-token` does not resolve to a secret store entry; declare it in the registry\'s tenant.md: `secrets: {otel-colector-token: {env: VAR_NAME}}` (declared: otel-collector-token)');
  expect(d.field).toBe('observability.tracing.auth.credentials_ref');
  // without any tenant.md the same reference cannot resolve either
  fs.rmSync(path.join(reg, 'tenant.md'));
  withAgent(reg, 'ok-ref', tracing('otel-collector-token'));
  expect(compileBundle(reg, 'ok-ref').diagnostics.find((x) => x.code === 'AGF093')?.message).toMatch(/\(this registry has no tenant.md\)$/);
});

test('without a queue registry a human_queue target is a warning (AGL042); with one, an unknown queue is an error', () => {
  const reg = tempRegistry();
  fs.rmSync(path.join(reg, 'tenant.md'));
  withAgent(reg, 'q-agent', { orchestration: { escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'anything' } }] } });
  const w = compileBundle(reg, 'q-agent');
  expect(w.bundle).toBeDefined();
  expect(w.diagnostics.find((x) => x.code === 'AGL042')?.message).toMatch(/human queue `anything` cannot be checked/);
  fs.writeFileSync(path.join(reg, 'tenant.md'), '---\ntenant_id: acme\nhuman_queues:\n  billing: { description: "Billing" }\n---\n');
  const e = compileBundle(reg, 'q-agent');
  expect(e.bundle).toBeUndefined();
  expect(e.diagnostics.find((x) => x.code === 'AGF094')?.message).toBe("human queue `anything` is not in the tenant's queue registry (tenant.md `human_queues`: billing); declare it there or use one of those");
});

test('tenant.md problems are REG008 on their own lines, and block every compile', () => {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'tenant.md'), [
    '---',
    'tenant_id: acme',
    'regions: [eu]',
    'telemetry: { exporter: otlp, credentials_ref: nope }',
    'human_queues:',
    '  Billing: { answered_by: "x" }',
    'secrets:',
    '  literal: { value: "sk-123" }',
    '  both: { env: A, file: /x }',
    '  rel: { file: secrets/x }',
    '---',
    '',
  ].join('\n'));
  const ds = validatePaths([reg]).filter((d) => d.code === 'REG008');
  expect(ds.map((d) => `${path.basename(d.file)}:${d.line} ${d.message.slice(0, 40)}`)).toEqual([
    'tenant.md:3 unknown tenant field `regions`; a tenant',
    'tenant.md:4 `telemetry.endpoint` must be the collect',
    'tenant.md:4 credentials_ref `nope` is not declared u',
    'tenant.md:6 queue name `Billing` must be lowercase (',
    'tenant.md:6 queue `Billing` needs a `description` (w',
    'tenant.md:8 secret `literal` needs exactly one of `e',
    'tenant.md:9 secret `both` needs exactly one of `env:',
    'tenant.md:10 `file` must be an absolute path, e.g. `/',
  ]);
  withAgent(reg, 'any-agent', {});
  expect(compileBundle(reg, 'any-agent').bundle).toBeUndefined();
});
