/**
 * Seed 001 artifacts on the real dev server, one test per retention class: the worker writes them
 * through the shared store as a completed run ends, `loom artifacts` (the real CLI) lists and
 * prints them, `ephemeral` writes nothing (no artifact activity, nothing in the artifact store),
 * `restricted` is sealed at rest and refuses to run without a key, and the purge workflow (once,
 * and on the Temporal Schedule `loom artifacts purge --schedule` creates) deletes expired ones.
 */
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import { agfReactWorkflow } from '../../src/workflows/react';
import { storeBundle } from '../../src/activities/blob-store';
import type { CompiledAgent } from '../../src/compiled/types';
import { openStore } from '../../src/store';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { startCliHarness, CliHarness, useBuiltCli } from '../cli/harness';
import { scheduledActivities } from '../runtime/harness';
import { auditLogPath } from '../../src/activities/audit';
import type { AuditEntry } from '../../src/governance/audit';
import { until } from '../helpers/wait';

/** The archivists' interface: an object input `q`, an object answer. */
const ARCHIVIST_INTERFACE = { input: { schema: { type: 'object', properties: { q: { type: 'string' } } } }, output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } } };

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('artifacts');
});
afterAll(async () => {
  delete process.env.LOOM_CODEC_KEY;
  await h.close();
});

const phrase = () => `ARTIFACT-SECRET-${randomBytes(5).toString('hex').toUpperCase()}`;
const DAY = 86_400_000;

async function runWith(artifacts: CompiledAgent['artifacts'], secret: string): Promise<{ id: string; failure?: string }> {
  const { bundle: compiled } = compileAgent({
    agent_id: 'archivist',
    model: scripted({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: 'note {{input.q}}' } }] }, { content: { answer: 'done {{input.q}}' } }] }),
    tools: [builtin('echo')],
    front: { interface: ARCHIVIST_INTERFACE, artifacts },
  });
  const bundle = await storeBundle(openStore(), compiled);
  const id = `archivist-${artifacts.retention_class}-${randomBytes(4).toString('hex')}`;
  const handle = await h.t.client.workflow.start(agfReactWorkflow, { taskQueue: h.taskQueue, workflowId: id, args: [{ bundle, agent_id: 'archivist', input: { q: secret } }] });
  try {
    await handle.result();
    return { id };
  } catch (err) {
    if (err instanceof WorkflowFailedError) return { id, failure: rootCause(err.cause) };
    throw err;
  }
}

const all = (retention_class: CompiledAgent['artifacts']['retention_class']): CompiledAgent['artifacts'] => ({ enabled: true, save_input: true, save_output: true, save_intermediate: true, retention_class });

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('standard: input, output and intermediate written through the store; loom artifacts lists and prints them', async () => {
  const secret = phrase();
  const t0 = Date.now();
  const { id, failure } = await runWith(all('standard'), secret);
  expect(failure).toBeUndefined();
  const list = await h.loom(['artifacts', id, '--json']);
  expect(list.code).toBe(0);
  const infos = JSON.parse(list.out) as Array<{ name: string; kind: string; retention_class: string; expires_at: string; agent_id: string }>;
  expect(infos.map((i) => [i.name, i.kind, i.retention_class, i.agent_id]).sort()).toEqual([
    ['input.json', 'input', 'standard', 'archivist'],
    ['intermediate.json', 'intermediate', 'standard', 'archivist'],
    ['output.json', 'output', 'standard', 'archivist'],
  ]);
  // Standard keeps 90 days by default (LOOM_ARTIFACT_STANDARD_DAYS).
  const exp = Date.parse(infos[0].expires_at);
  expect(exp).toBeGreaterThanOrEqual(t0 + 90 * DAY);
  expect(exp).toBeLessThanOrEqual(Date.now() + 90 * DAY);

  const out = await h.loom(['artifacts', id, '--get', 'output.json']);
  expect(JSON.parse(out.out)).toEqual({ output: { answer: `done ${secret}` } });
  const inter = JSON.parse((await h.loom(['artifacts', id, '--get', 'intermediate.json'])).out) as { tool_calls: Array<{ tool: string; arguments: unknown; result: string }> };
  expect(inter.tool_calls).toHaveLength(1);
  expect(inter.tool_calls[0]).toMatchObject({ tool: 'echo', arguments: { text: `note ${secret}` } });
  expect(inter.tool_calls[0].result).toContain(secret);
  expect((await h.loom(['artifacts', id, '--get', 'input.json'])).out).toContain(secret);

  const table = await h.loom(['artifacts', id]);
  expect(table.out.split('\n')[0]).toMatch(/^NAME\s+KIND\s+RETENTION\s+EXPIRES\s+BYTES$/);
  const missing = await h.loom(['artifacts', id, '--get', 'reasoning.json']);
  expect(missing.code).toBe(1);
  expect(missing.err).toContain(`run ${id} has no artifact 'reasoning.json'`);
  expect(missing.err).toContain('input.json, intermediate.json, output.json');
});

test('only the declared kinds are written; enabled: false writes nothing', async () => {
  const outOnly = await runWith({ ...all('standard'), save_input: false, save_intermediate: false }, phrase());
  expect((await openStore().listArtifacts(outOnly.id)).map((a) => a.name)).toEqual(['output.json']);
  const off = await runWith({ ...all('standard'), enabled: false }, phrase());
  expect(await openStore().listArtifacts(off.id)).toEqual([]);
  expect(await scheduledActivities(h.t.client.workflow.getHandle(off.id))).not.toContain('saveRunArtifacts');
});

test('extended: kept 2555 days by default', async () => {
  const { id } = await runWith(all('extended'), phrase());
  const infos = await openStore().listArtifacts(id);
  expect(infos).toHaveLength(3);
  for (const i of infos) expect(Math.round((Date.parse(i.expires_at) - Date.parse(i.created_at)) / DAY)).toBe(2555);
});

test('ephemeral: no artifact activity runs and the artifact store holds nothing of the run', async () => {
  const secret = phrase();
  const { id, failure } = await runWith(all('ephemeral'), secret);
  expect(failure).toBeUndefined();
  expect(await scheduledActivities(h.t.client.workflow.getHandle(id))).not.toContain('saveRunArtifacts');
  expect(await openStore().listArtifacts(id)).toEqual([]);
  const artifactFiles = filesUnder(path.join(process.env.LOOM_STORE_DIR!, 'artifacts'));
  expect(artifactFiles.filter((f) => fs.readFileSync(f).includes(Buffer.from(secret)))).toEqual([]);
  // The history carries no artifact write: no scheduled activity input names an artifact.
  const hist = await h.t.client.workflow.getHandle(id).fetchHistory();
  expect(JSON.stringify(hist.events).includes('saveRunArtifacts')).toBe(false);
  const list = await h.loom(['artifacts', id]);
  expect(list.out).toContain(`run ${id} has no artifacts`);
});

test('restricted: refused without a key; with one, sealed at rest and opened only with the key', async () => {
  delete process.env.LOOM_CODEC_KEY;
  const refused = await runWith(all('restricted'), phrase());
  expect(refused.failure).toContain('keeps restricted artifacts, which are stored encrypted, but this worker has no encryption key: set LOOM_CODEC_KEY or LOOM_CODEC_KEY_FILE');
  expect(await openStore().listArtifacts(refused.id)).toEqual([]);

  const key = `restricted-1:${randomBytes(32).toString('base64')}`;
  process.env.LOOM_CODEC_KEY = key; // read by the artifact activity when it writes
  const secret = phrase();
  try {
    const { id, failure } = await runWith(all('restricted'), secret);
    expect(failure).toBeUndefined();
    const infos = await openStore().listArtifacts(id);
    expect(infos.map((i) => i.retention_class)).toEqual(['restricted', 'restricted', 'restricted']);
    const files = filesUnder(path.join(process.env.LOOM_STORE_DIR!, 'artifacts'));
    expect(files.filter((f) => fs.readFileSync(f, 'utf8').includes(secret) || Buffer.from(JSON.parse(fs.readFileSync(f, 'utf8')).content, 'base64').includes(Buffer.from(secret)))).toEqual([]);
    const withKey = await h.loom(['artifacts', id, '--get', 'output.json'], { env: { LOOM_CODEC_KEY: key } });
    expect(JSON.parse(withKey.out)).toEqual({ output: { answer: `done ${secret}` } });
    const without = await h.loom(['artifacts', id, '--get', 'output.json']);
    expect(without.code).toBe(1);
    expect(without.err).toContain("is encrypted with key 'restricted-1', which this process does not have");
  } finally {
    delete process.env.LOOM_CODEC_KEY;
  }
});

test('expired artifacts are purged by the workflow, once and on the schedule loom artifacts purge --schedule creates', async () => {
  const store = openStore();
  const now = Date.now();
  const put = (run: string, expires: number) =>
    store.putArtifact({ run_id: run, name: 'output.json', kind: 'output', retention_class: 'standard', agent_id: 'a', created_at: new Date(now - 100 * DAY).toISOString(), expires_at: new Date(expires).toISOString(), bytes: 2, content: Buffer.from('{}') });
  const old1 = `old-${randomBytes(3).toString('hex')}`;
  const fresh = `fresh-${randomBytes(3).toString('hex')}`;
  await put(old1, now - DAY);
  await put(fresh, now + DAY);
  const once = await h.loom(['artifacts', 'purge']);
  expect(once.err).toBe('');
  expect(once.out).toMatch(/^purged [1-9]\d* expired artifact\(s\) from /);
  expect(await store.listArtifacts(old1)).toEqual([]);
  expect(await store.listArtifacts(fresh)).toHaveLength(1);

  const old2 = `old-${randomBytes(3).toString('hex')}`;
  await put(old2, now - DAY);
  const sched = await h.loom(['artifacts', 'purge', '--schedule', '--every', '6h']);
  expect(sched.out).toMatch(/^schedule loom-artifacts-purge (created|updated): artifactsPurgeWorkflow every 6h on task queue /);
  const handle = h.t.client.schedule.getHandle('loom-artifacts-purge');
  try {
    const desc = await handle.describe();
    expect(desc.action).toMatchObject({ type: 'startWorkflow', workflowType: 'artifactsPurgeWorkflow', taskQueue: h.taskQueue });
    expect(desc.spec.intervals?.[0].every).toBe(6 * 3600 * 1000);
    await handle.trigger();
    await until(async () => ((await store.listArtifacts(old2)).length === 0 ? true : undefined), 'the scheduled purge to delete the expired artifacts').catch(() => undefined);
    expect(await store.listArtifacts(old2)).toEqual([]);
    expect(await store.listArtifacts(fresh)).toHaveLength(1);
  } finally {
    await handle.delete();
  }
  const usage = await h.loom(['artifacts', 'some-run', '--schedule']);
  expect(usage.code).toBe(2);
});

test('pii_redaction: every artifact, a tool result included, holds the audit log\'s placeholders, not the e-mail, phone or card number', async () => {
  const EMAIL = 'maria.lopez@example.com';
  const PHONE = '+1 415 555 0134';
  const CARD = '4111 1111 1111 1111';
  const { agent: a, bundle: compiled } = compileAgent({
    agent_id: 'pii-archivist',
    // The tool call repeats the contact details, so the tool's result holds them raw in the conversation.
    model: scripted({ turns: [{ tool_calls: [{ name: 'echo', arguments: { text: `contact ${EMAIL}, ${PHONE}, card ${CARD}` } }] }, { content: { answer: 'noted' } }] }),
    tools: [builtin('echo')],
    front: { interface: ARCHIVIST_INTERFACE, artifacts: all('standard'), policies: { pii_redaction: true, audit_level: 'full' } },
  });
  expect(a.policies).toMatchObject({ pii_redaction: true, runtime_pass: true, audit_level: 'full', audit_trail: true });
  const bundle = await storeBundle(openStore(), compiled);
  const id = `pii-archivist-${randomBytes(4).toString('hex')}`;
  await h.t.client.workflow.execute(agfReactWorkflow, { taskQueue: h.taskQueue, workflowId: id, args: [{ bundle, agent_id: a.agent_id, input: { q: `write to ${EMAIL}` } }] });

  const got = await h.loom(['artifacts', id, '--get', 'intermediate.json']);
  expect(got.code).toBe(0);
  const inter = JSON.parse(got.out) as { tool_calls: Array<{ tool: string; arguments: { text: string }; result: string }> };
  expect(inter.tool_calls).toHaveLength(1);
  const { result, arguments: args } = inter.tool_calls[0];
  for (const raw of [EMAIL, PHONE, CARD]) expect(got.out).not.toContain(raw);
  expect(result).toMatch(/\[EMAIL\].*\[PHONE\].*\[CARD_NUMBER\]/s);
  expect(args.text).toBe('contact [EMAIL], [PHONE], card [CARD_NUMBER]');
  // The same engine and placeholders as the audit log of the same run.
  const entry = fs.readFileSync(auditLogPath(a.agent_id), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as AuditEntry).find((e) => e.workflow_id === id);
  expect(entry?.tool_results?.[0].content).toBe(result);
  expect(entry?.tool_calls?.[0].arguments).toEqual(args);
  for (const name of ['input.json', 'output.json']) {
    const r = await h.loom(['artifacts', id, '--get', name]);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain(EMAIL);
  }
});
