/**
 * tenant.md `artifact_store` honoured at run time (decision 286), on the real dev server with the
 * real CLI: the shared store is a folder, the tenant's artifact store a real PostgreSQL (started by
 * the test) whose password is read from the secret store (`credentials_ref` → an env var), never
 * written in the url, the bundle or the history. The run's artifacts land in that database, not in
 * the shared folder; `loom artifacts` (another process, the same settings) finds them through the
 * route the shared store keeps; the purge deletes expired ones there. `type: file` with
 * `encryption: aes-256-gcm` writes to its own folder, sealed, and refuses to run without a key.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import { Client as PgClient } from 'pg';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeBundle } from '../../src/activities/blob-store';
import type { CompiledTenant } from '../../src/compiled/types';
import { closeOpenStores, FileBlobStore, openRoute, openStore } from '../../src/store';
import { archivistBundle } from './archivist';
import { startCliHarness, CliHarness, STACK_TRACE, useBuiltCli } from '../cli/harness';
import { startTestPostgres, TestPostgres } from '../helpers/postgres';

jest.setTimeout(300_000);

const PW_ENV = `LOOM_TEST_ARTIFACT_DB_PW_${randomBytes(3).toString('hex').toUpperCase()}`;
const DAY = 86_400_000;

let h: CliHarness;
let pg: TestPostgres;
let pgUrl: string;
let folder: string;

// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  pg = await startTestPostgres('loom-tenant-artifacts');
  // The url the platform team writes in tenant.md: no password.
  pgUrl = (await pg.urlFor('tenantartifacts')).replace(`:${pg.password}@`, '@');
  process.env[PW_ENV] = pg.password;
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-tenant-artifact-folder-'));
  h = await startCliHarness('tenant-artifacts');
}, 120_000);
afterAll(async () => {
  delete process.env[PW_ENV];
  delete process.env.LOOM_CODEC_KEY;
  await h?.close();
  await closeOpenStores();
  pg?.destroy();
  fs.rmSync(folder, { recursive: true, force: true });
});

const pgTenant = (): CompiledTenant => ({
  tenant_id: 'acme',
  artifact_store: { type: 'postgres', url: pgUrl, credentials_ref: 'artifact-db' },
  secrets: { 'artifact-db': { env: PW_ENV } },
});

async function runWith(tenant: CompiledTenant, secret: string): Promise<{ id: string; failure?: string }> {
  const bundle = await storeBundle(openStore(), archivistBundle(tenant));
  const id = `tenant-art-${randomBytes(4).toString('hex')}`;
  const handle = await h.t.client.workflow.start(agfReactWorkflow, { taskQueue: h.taskQueue, workflowId: id, args: [{ bundle, agent_id: 'archivist', input: { q: secret } }] });
  try {
    await handle.result();
    return { id };
  } catch (err) {
    if (err instanceof WorkflowFailedError) return { id, failure: rootCause(err.cause) };
    throw err;
  }
}

async function pgRows(runId: string): Promise<string[]> {
  const db = new PgClient({ host: pg.host, port: pg.port, user: pg.user, password: pg.password, database: 'tenantartifacts' });
  await db.connect();
  try {
    return (await db.query<{ name: string }>('SELECT name FROM loom_artifacts WHERE run_id = $1 ORDER BY name', [runId])).rows.map((r) => r.name);
  } finally {
    await db.end();
  }
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('type postgres: artifacts go to the tenant database, not the shared folder; loom artifacts finds them; the password is nowhere', async () => {
  const secret = `TENANT-${randomBytes(5).toString('hex')}`;
  const { id, failure } = await runWith(pgTenant(), secret);
  expect(failure).toBeUndefined();
  expect(await pgRows(id)).toEqual(['input.json', 'intermediate.json', 'output.json']);
  // The shared folder holds the route, not the artifacts (its own backend, without routing, has none of the run).
  expect(await new FileBlobStore(process.env.LOOM_STORE_DIR!).listArtifacts(id)).toEqual([]);
  expect(filesUnder(path.join(process.env.LOOM_STORE_DIR!, 'artifacts')).filter((f) => fs.readFileSync(f).includes(Buffer.from(Buffer.from(secret).toString('base64').slice(0, 12))))).toEqual([]);

  const cliEnv = { [PW_ENV]: pg.password };
  const list = await h.loom(['artifacts', id, '--json'], { env: cliEnv });
  expect({ code: list.code, err: list.err }).toEqual({ code: 0, err: '' });
  expect((JSON.parse(list.out) as Array<{ name: string }>).map((i) => i.name).sort()).toEqual(['input.json', 'intermediate.json', 'output.json']);
  const out = await h.loom(['artifacts', id, '--get', 'output.json'], { env: cliEnv });
  expect(JSON.parse(out.out)).toEqual({ output: { answer: `done ${secret}` } });

  // A CLI without the secret is told which credentials_ref and where it looked, without a stack trace.
  const noPw = await h.loom(['artifacts', id]);
  expect(noPw.code).not.toBe(0);
  expect(noPw.err).toContain(`credentials_ref \`artifact-db\`: the environment variable ${PW_ENV} is not set`);
  expect(noPw.err).not.toMatch(STACK_TRACE);

  const hist = JSON.stringify(await h.handle(id).fetchHistory());
  expect(hist).not.toContain(pg.password);
  expect(filesUnder(process.env.LOOM_STORE_DIR!).filter((f) => fs.readFileSync(f).includes(Buffer.from(pg.password)))).toEqual([]);
});

test('the purge deletes expired artifacts in the tenant database too', async () => {
  await runWith(pgTenant(), 'route-me'); // the shared store now lists the tenant store
  const tenantStore = openRoute({ url: pgUrl, credentials_ref: 'artifact-db', credentials: { env: PW_ENV } });
  const now = Date.now();
  const put = (run: string, expires: number) =>
    tenantStore.putArtifact({ run_id: run, name: 'output.json', kind: 'output', retention_class: 'standard', agent_id: 'a', created_at: new Date(now - 100 * DAY).toISOString(), expires_at: new Date(expires).toISOString(), bytes: 2, content: Buffer.from('{}') });
  const old = `old-${randomBytes(3).toString('hex')}`;
  const fresh = `fresh-${randomBytes(3).toString('hex')}`;
  await put(old, now - DAY);
  await put(fresh, now + DAY);
  const r = await h.loom(['artifacts', 'purge']);
  expect(r.err).toBe('');
  expect(r.out).toMatch(new RegExp(`^purged [1-9]\\d* expired artifact\\(s\\) from .*postgres://${pg.user}@127\\.0\\.0\\.1:${pg.port}/tenantartifacts`));
  expect(r.out).not.toContain(pg.password);
  expect(await pgRows(old)).toEqual([]);
  expect(await pgRows(fresh)).toEqual(['output.json']);
});

test('type file with encryption aes-256-gcm: refused without a key; with one, sealed in the tenant folder and read with the key', async () => {
  const tenant: CompiledTenant = { tenant_id: 'acme', artifact_store: { type: 'file', url: `file://${folder}`, encryption: 'aes-256-gcm' } };
  delete process.env.LOOM_CODEC_KEY;
  const refused = await runWith(tenant, 'no-key');
  expect(refused.failure).toContain("writes artifacts to a store its tenant.md declares with `encryption: aes-256-gcm`, but this worker has no encryption key");

  const key = `tenant-1:${randomBytes(32).toString('base64')}`;
  process.env.LOOM_CODEC_KEY = key;
  const secret = `SEALED-${randomBytes(5).toString('hex')}`;
  try {
    const { id, failure } = await runWith(tenant, secret);
    expect(failure).toBeUndefined();
    const files = filesUnder(path.join(folder, 'artifacts'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(files.filter((f) => fs.readFileSync(f).includes(Buffer.from(secret)))).toEqual([]);
    const infos = (await openStore().listArtifacts(id)).map((i) => i.name).sort();
    expect(infos).toEqual(['input.json', 'intermediate.json', 'output.json']);
    const withKey = await h.loom(['artifacts', id, '--get', 'output.json'], { env: { LOOM_CODEC_KEY: key } });
    expect(JSON.parse(withKey.out)).toEqual({ output: { answer: `done ${secret}` } });
  } finally {
    delete process.env.LOOM_CODEC_KEY;
  }
});
