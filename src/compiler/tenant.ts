/**
 * The tenant configuration the Agent Definition Specification implies but leaves to "the platform team": one optional file,
 * `tenant.md` at the registry root (YAML front matter like every registry file; the body is notes),
 * holding what agent files must never contain:
 *
 *   tenant_id: acme
 *   data_residency: eu                 # default for agents that declare none ("tenant default")
 *   artifact_store: {type: s3, bucket: acme-artifacts, credentials_ref: artifact-store-key, encryption: aws:kms}
 *   telemetry: {exporter: otlp, endpoint: "https://otel.acme.internal:4318", credentials_ref: otel-collector-token}
 *   human_queues:                      # the human-in-the-loop routing registry
 *     billing-disputes: {description: "Disputed charges", answered_by: "Billing team"}
 *   connectors:                        # the connector registry policies.allowed_connectors names resolve to
 *     sharepoint: {description: "Company SharePoint", region: eu-west-1}
 *   secrets:                           # the secret store: where each credentials_ref is read from
 *     otel-collector-token: {env: OTEL_COLLECTOR_TOKEN}
 *     artifact-store-key: {file: /run/secrets/artifact-store-key}
 *
 * The compiler validates it, resolves every `credentials_ref` against `secrets` (an unresolved
 * reference is a hard error in that specification), checks `human_queue` escalation targets against
 * `human_queues` and `allowed_connectors` names against `connectors`, and injects the tenant's artifact store, telemetry defaults and residency into
 * each compiled agent. Secrets are injected as *references* (env var name or file path), never
 * values: a deliberate deviation from the specification's "resolved secret is injected into the compiled
 * payload" (docs/spec-decisions.md), since payloads land in workflow histories.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { CompiledTenant, Diagnostic, HumanQueue, JsonObject, SecretRef } from '../compiled/types';

import { diag, posOf, readSource, type PathPart, type SourceFile } from './source';
import { parseStoreUrl, redactStoreUrl, type StoreLocation } from '../store/url';
import { ARTIFACT_ENCRYPTION, ARTIFACT_STORE_TYPES, S3_STORE_FIELDS, artifactStoreUrl } from '../store/artifact-types';

export const TENANT_FILE = 'tenant.md';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';


export interface TenantConfig {
  file: string;
  src: SourceFile;
  tenant_id: string;
  data_residency?: string;
  artifact_store?: JsonObject;
  telemetry?: JsonObject;
  /** Undefined when the tenant declares no queue registry (then any queue name is only a warning). */
  human_queues?: Record<string, HumanQueue>;
  /** The connector registry: connector name → where it is hosted (undefined when the tenant declares none: names are then checked for their form only). */
  connectors?: Record<string, { description?: string; region?: string }>;
  secrets: Record<string, SecretRef>;
}


/** The fields of tenant.md `telemetry` the worker reads (src/telemetry/config.ts: tenant, then agent, then OTEL_*). */
const TELEMETRY_FIELDS = ['exporter', 'endpoint', 'credentials_ref', 'sampling_rate', 'region'];

/**
 * tenant.md `telemetry` (agents narrow it, never redirect it): where every agent's spans, metrics and log records go.
 * `exporter` otlp (OTLP/HTTP), console or none; `endpoint` the collector's OTLP/HTTP base URL (the
 * worker appends /v1/traces, /v1/metrics, /v1/logs), required for otlp; `credentials_ref` sent as
 * `Authorization: Bearer`; `sampling_rate` (0..1) the highest rate an agent may trace at; `region`
 * where the collector is hosted, checked against an agent's `data_residency` when the run exports.
 */
function checkTelemetry(o: Obj, src: SourceFile, err: (p: PathPart[], message: string, key?: boolean) => void, diags: Diagnostic[]): void {
  if (isStr(o.exporter) && !['otlp', 'console', 'none'].includes(o.exporter)) err(['telemetry', 'exporter'], `\`telemetry.exporter\` must be otlp, console or none (got \`${o.exporter}\`)`);
  if (o.exporter === 'otlp') {
    let url: URL | undefined;
    try {
      url = isStr(o.endpoint) ? new URL(o.endpoint.trim()) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      err(o.endpoint === undefined ? ['telemetry'] : ['telemetry', 'endpoint'], '`telemetry.endpoint` must be the collector\'s OTLP/HTTP base URL, e.g. `endpoint: "https://otel.acme.internal:4318"` (the worker appends /v1/traces, /v1/metrics, /v1/logs)', o.endpoint === undefined);
    }
  }
  if (o.sampling_rate !== undefined && (typeof o.sampling_rate !== 'number' || o.sampling_rate < 0 || o.sampling_rate > 1)) err(['telemetry', 'sampling_rate'], '`telemetry.sampling_rate` must be a number from 0 to 1');
  if (o.region !== undefined && !isStr(o.region)) err(['telemetry', 'region'], '`telemetry.region` must be a region string, e.g. `eu-west-1`');
  for (const k of Object.keys(o)) {
    if (TELEMETRY_FIELDS.includes(k)) continue;
    const at = posOf(src, ['telemetry', k], true);
    diags.push(diag(TENANT_FILE, at.line, at.column, 'warning', 'AGL030', `telemetry.${k}`, `\`telemetry.${k}\` is compiled but not used at run time (fields read: ${TELEMETRY_FIELDS.join(', ')}; headers, protocol and resource attributes come from the worker's OTEL_* variables)`));
  }
}

/**
 * tenant.md `artifact_store`, the one tenant-level store artifacts go to: `type: store` (the shared LOOM_STORE_URL store), `file`
 * or `postgres` with a `url` read by the LOOM_STORE_URL parser, the password behind `credentials_ref`
 * (never in the url), `encryption: aes-256-gcm`; `s3` located by `bucket` (+ `prefix`, `endpoint`,
 * `region`) or an s3:// `url`, its access key behind `credentials_ref`. Problems are REG008 errors; a type or field this
 * runtime has no backend for is an AGL030 warning naming it and saying where artifacts go instead.
 */
function checkArtifactStore(o: Obj, src: SourceFile, err: (p: PathPart[], message: string, key?: boolean) => void, diags: Diagnostic[]): void {
  const warn = (p: PathPart[], message: string): void => {
    const at = posOf(src, p, true);
    diags.push(diag(TENANT_FILE, at.line, at.column, 'warning', 'AGL030', p.join('.'), message));
  };
  const type = o.type;
  if (!isStr(type)) return;
  const types: readonly string[] = ARTIFACT_STORE_TYPES;
  if (!types.includes(type)) {
    warn(['artifact_store'], `\`artifact_store.type: ${type}\` is compiled but not used at run time: this runtime writes artifacts to ${types.map((t) => `\`${t}\``).join(', ')} stores only, so they go to the store every worker shares (LOOM_STORE_URL)`);
    return;
  }
  const s3Fields: readonly string[] = S3_STORE_FIELDS;
  // `region`: where the store is hosted, checked against policies.data_residency (for s3 also the bucket's AWS region).
  const known = ['type', 'url', 'credentials_ref', 'encryption', ...(type === 's3' ? s3Fields : ['region'])];
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) {
      const by = type === 's3' ? `\`bucket\` (with \`prefix\`, \`endpoint\`, \`region\`) or \`url\`` : '`url` only';
      warn(['artifact_store', k], `\`artifact_store.${k}\` is compiled but not used at run time: a ${type} artifact store is located by ${by} (fields read: ${known.join(', ')})`);
    }
  }
  if (o.encryption !== undefined && o.encryption !== ARTIFACT_ENCRYPTION) {
    warn(['artifact_store', 'encryption'], `\`artifact_store.encryption: ${String(o.encryption)}\` is compiled but not used at run time: only \`${ARTIFACT_ENCRYPTION}\` (every artifact sealed with the codec key) is applied; otherwise only \`restricted\` artifacts are sealed`);
  }
  if (type === 'store') {
    for (const k of ['url', 'credentials_ref'] as const) if (o[k] !== undefined) err(['artifact_store', k], `\`artifact_store.${k}\` does not go with \`type: store\` (the shared LOOM_STORE_URL store); use \`type: file\` or \`type: postgres\` with a url`, true);
    return;
  }
  const example = type === 'postgres' ? 'postgres://loom@db.internal:5432/artifacts' : type === 's3' ? 's3://acme-artifacts/loom?endpoint=https://minio.internal:9000' : 'file:///srv/loom/artifacts';
  if (type === 's3') {
    // Located by bucket (+ prefix, endpoint, region) or by a url, not both.
    const given = s3Fields.filter((k) => o[k] !== undefined);
    if (o.url !== undefined && given.length) {
      err(['artifact_store', given[0]], `\`artifact_store.${given[0]}\` does not go with \`url\`: locate an s3 store by \`bucket\` (with \`prefix\`, \`endpoint\`, \`region\`) or by \`url\`, not both`, true);
      return;
    }
    for (const k of given) {
      if (!isStr(o[k])) {
        err(['artifact_store', k], `\`artifact_store.${k}\` must be a string`);
        return;
      }
    }
    if (o.url === undefined && !given.includes('bucket')) {
      err(['artifact_store'], '`artifact_store.bucket` is required for `type: s3`, e.g. `bucket: acme-artifacts` (with `endpoint: https://minio.internal:9000` for an S3-compatible service), or a `url` like `' + example + '`', true);
      return;
    }
  }
  const at: PathPart[] = o.url === undefined && type === 's3' ? ['artifact_store', 'bucket'] : ['artifact_store', 'url'];
  const url = artifactStoreUrl(o);
  if (!isStr(url)) {
    err(['artifact_store'], `\`artifact_store.url\` is required for \`type: ${type}\`, e.g. \`url: ${example}\``, true);
    return;
  }
  let loc: StoreLocation;
  try {
    loc = parseStoreUrl(url);
  } catch (e) {
    err(at, `\`artifact_store${o.url === undefined && type === 's3' ? '' : '.url'}\`: ${(e as Error).message.replace(/^LOOM_STORE_URL /, '').replace(/: write file:\/\/\/absolute.*$/, o.url === undefined && type === 's3' ? '' : '$&')}`);
    return;
  }
  if (loc.kind !== type) {
    err(['artifact_store', 'url'], `\`artifact_store.url\` is a ${loc.kind} location but \`type\` is ${type}: write e.g. \`${example}\``);
    return;
  }
  if (loc.kind === 'file' && !/^file:/i.test(url.trim())) err(['artifact_store', 'url'], `\`artifact_store.url\` must be a file:/// URL (an absolute folder every worker and the CLI see), e.g. \`${example}\``);
  if (loc.kind === 'file' && o.credentials_ref !== undefined) err(['artifact_store', 'credentials_ref'], '`credentials_ref` does not go with `type: file` (a folder has no password)', true);
  if (loc.kind === 'postgres' && new URL(url.trim()).password) {
    err(['artifact_store', 'url'], `\`artifact_store.url\` holds a password: tenant.md is compiled into every agent, so name the password with \`credentials_ref\` (declared under \`secrets\`) and write ${redactStoreUrl(url).replace(':***@', '@')}`);
  }
}

const TOP = ['tenant_id', 'data_residency', 'artifact_store', 'telemetry', 'human_queues', 'connectors', 'secrets'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ID = /^[a-z0-9][a-z0-9._-]*$/;

/** Reads `<registry>/tenant.md` when present; every problem is a diagnostic on its line. */
export function loadTenant(root: string, diags: Diagnostic[]): TenantConfig | undefined {
  const file = path.join(root, TENANT_FILE);
  if (!fs.existsSync(file)) return undefined;
  const own: Diagnostic[] = [];
  const src = readSource(file, TENANT_FILE, own);
  diags.push(...own);
  if (!src?.data) return undefined;
  const d = src.data;
  const err = (p: PathPart[], message: string, key = false): void => {
    const at = posOf(src, p, key);
    diags.push(diag(TENANT_FILE, at.line, at.column, 'error', 'REG008', p.join('.'), message));
  };
  for (const k of Object.keys(d)) if (!TOP.includes(k)) err([k], `unknown tenant field \`${k}\`; a tenant.md holds ${TOP.join(', ')}`, true);
  if (!isStr(d.tenant_id)) err(d.tenant_id === undefined ? [] : ['tenant_id'], '`tenant_id` is required: the tenant\'s name, e.g. `tenant_id: acme`');
  if (d.data_residency !== undefined && !isStr(d.data_residency)) err(['data_residency'], '`data_residency` must be a region string, e.g. `eu`');
  for (const k of ['artifact_store', 'telemetry'] as const) {
    if (d[k] === undefined) continue;
    if (!isObj(d[k])) { err([k], `\`${k}\` must be a mapping`); continue; }
    const o = d[k] as Obj;
    const need = k === 'artifact_store' ? 'type' : 'exporter';
    if (!isStr(o[need])) err([k], `\`${k}.${need}\` is required`, true);
    if (k === 'artifact_store') checkArtifactStore(o, src, err, diags);
    else checkTelemetry(o, src, err, diags);
  }
  let queues: Record<string, HumanQueue> | undefined;
  if (d.human_queues !== undefined) {
    queues = {};
    if (!isObj(d.human_queues)) err(['human_queues'], '`human_queues` maps a queue name to `{description, answered_by}`');
    else for (const [name, q] of Object.entries(d.human_queues)) {
      if (!ID.test(name)) err(['human_queues', name], `queue name \`${name}\` must be lowercase (letters, digits, \`.\`, \`_\`, \`-\`)`, true);
      if (!isObj(q) || !isStr(q.description)) { err(['human_queues', name], `queue \`${name}\` needs a \`description\` (what it is for, shown to operators)`, true); continue; }
      for (const k of Object.keys(q)) if (k !== 'description' && k !== 'answered_by') err(['human_queues', name, k], `unknown queue field \`${k}\`; a queue has description and answered_by`, true);
      queues[name] = { description: q.description as string, ...(isStr(q.answered_by) ? { answered_by: q.answered_by } : {}) };
    }
  }
  let connectors: TenantConfig['connectors'];
  if (d.connectors !== undefined) {
    connectors = {};
    if (!isObj(d.connectors)) err(['connectors'], '`connectors` maps a connector name to `{description, region}`, e.g. `connectors: {sharepoint: {description: "Company SharePoint", region: eu}}`');
    else for (const [name, c] of Object.entries(d.connectors)) {
      if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(name)) { err(['connectors', name], `connector name \`${name}\` must be a lowercase identifier (letters, digits, \`_\`, \`-\`)`, true); continue; }
      if (c !== null && !isObj(c)) { err(['connectors', name], `connector \`${name}\` is \`{description, region}\` (both optional)`, true); continue; }
      const o = (c ?? {}) as Obj;
      for (const k of Object.keys(o)) if (k !== 'description' && k !== 'region') err(['connectors', name, k], `unknown connector field \`${k}\`; a connector has description and region`, true);
      if (o.region !== undefined && !isStr(o.region)) err(['connectors', name, 'region'], '`region` must be a region string, e.g. `eu-west-1`');
      connectors[name] = { ...(isStr(o.description) ? { description: o.description } : {}), ...(isStr(o.region) ? { region: o.region } : {}) };
    }
  }
  const secrets: Record<string, SecretRef> = {};
  if (d.secrets !== undefined) {
    if (!isObj(d.secrets)) err(['secrets'], '`secrets` maps a credentials_ref name to `{env: VAR}` or `{file: PATH}`');
    else for (const [name, s] of Object.entries(d.secrets)) {
      const at: PathPart[] = ['secrets', name];
      if (!isObj(s) || (s.env === undefined) === (s.file === undefined)) { err(at, `secret \`${name}\` needs exactly one of \`env: VAR_NAME\` or \`file: /path\` (never the value itself)`, true); continue; }
      if (s.env !== undefined && (!isStr(s.env) || !ENV_NAME.test(s.env))) { err([...at, 'env'], `\`env\` must be an environment variable name, e.g. \`OTEL_COLLECTOR_TOKEN\``); continue; }
      if (s.file !== undefined && (!isStr(s.file) || !path.isAbsolute(s.file))) { err([...at, 'file'], '`file` must be an absolute path, e.g. `/run/secrets/otel-token`'); continue; }
      for (const k of Object.keys(s)) if (k !== 'env' && k !== 'file') err([...at, k], `unknown secret field \`${k}\`; a secret is \`{env: VAR}\` or \`{file: PATH}\``, true);
      secrets[name] = s.env !== undefined ? { env: s.env as string } : { file: s.file as string };
    }
  }
  // The tenant's own references resolve against its own secret store too.
  for (const k of ['artifact_store', 'telemetry'] as const) {
    for (const r of credentialRefs(d[k], [k])) if (!secrets[r.ref]) err(r.path, `credentials_ref \`${r.ref}\` is not declared under \`secrets\`; add \`secrets: {${r.ref}: {env: VAR_NAME}}\``);
  }
  return {
    file: TENANT_FILE,
    src,
    tenant_id: isStr(d.tenant_id) ? d.tenant_id : '',
    ...(isStr(d.data_residency) ? { data_residency: d.data_residency } : {}),
    ...(isObj(d.artifact_store) ? { artifact_store: d.artifact_store as JsonObject } : {}),
    ...(isObj(d.telemetry) ? { telemetry: d.telemetry as JsonObject } : {}),
    ...(queues ? { human_queues: queues } : {}),
    ...(connectors ? { connectors } : {}),
    secrets,
  };
}

/** Every `credentials_ref` value in a data tree, with its path. */
export function credentialRefs(data: unknown, at: PathPart[] = []): { ref: string; path: PathPart[] }[] {
  const out: { ref: string; path: PathPart[] }[] = [];
  if (Array.isArray(data)) data.forEach((v, i) => out.push(...credentialRefs(v, [...at, i])));
  else if (isObj(data)) {
    for (const [k, v] of Object.entries(data)) {
      if (k === 'credentials_ref' && typeof v === 'string') out.push({ ref: v, path: [...at, k] });
      else out.push(...credentialRefs(v, [...at, k]));
    }
  }
  return out;
}

/** The message for a credentials_ref the secret store does not hold. */
export function unresolvedRefMessage(ref: string, tenant: TenantConfig | undefined): string {
  const known = tenant ? Object.keys(tenant.secrets).sort() : [];
  return `credentials_ref \`${ref}\` does not resolve to a secret store entry; declare it in the registry's ${TENANT_FILE}: \`secrets: {${ref}: {env: VAR_NAME}}\`${known.length ? ` (declared: ${known.join(', ')})` : tenant ? ' (it declares no secrets)' : ' (this registry has no tenant.md)'}`;
}

/** The tenant block a compiled agent carries; `refs` are the credentials_refs it uses. */
export function compiledTenant(t: TenantConfig, refs: string[]): CompiledTenant {
  const secrets: Record<string, SecretRef> = {};
  // A PostgreSQL artifact store's password (an s3 store's access key) is read by the worker that writes the artifacts.
  const store = t.artifact_store as Obj | undefined;
  const storeRef = (store?.type === 'postgres' || store?.type === 's3') && isStr(store.credentials_ref) ? [store.credentials_ref] : [];
  // The telemetry collector's token is read from the tenant's secret store by the worker that exports.
  const telemetry = t.telemetry as Obj | undefined;
  const telemetryRef = telemetry && isStr(telemetry.credentials_ref) ? [telemetry.credentials_ref] : [];
  for (const r of [...new Set([...refs, ...storeRef, ...telemetryRef])].sort()) if (t.secrets[r]) secrets[r] = t.secrets[r];
  return {
    tenant_id: t.tenant_id,
    ...(t.data_residency ? { data_residency: t.data_residency } : {}),
    ...(t.artifact_store ? { artifact_store: t.artifact_store } : {}),
    ...(t.telemetry ? { telemetry: t.telemetry } : {}),
    ...(Object.keys(secrets).length ? { secrets } : {}),
  };
}
