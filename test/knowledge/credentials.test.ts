/**
 * credentials_ref read at run time (issue 14, seed 001 "secret store"): an `http` knowledge
 * backend whose `credentials_ref` the tenant's secret store maps to an env var or a file. The
 * value is read inside the activity that makes the request (src/platform/secrets.ts), so the
 * endpoint receives `Authorization: Bearer <value>` while the bundle, the workflow history, the
 * store and the model's requests hold only the ref's name.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import type { AgentRunResult } from '../../src/shared/contract';
import type { TestTemporal } from '../helpers/temporal';
import { Harness, startHarness } from '../runtime/harness';
import { FakeOpenAIServer, reply, startFakeOpenAI, toolCalls } from '../helpers/openai-server';
import { agfReactWorkflow } from '../../src/workflows/react';
import { readSecret } from '../../src/platform/secrets';
import { storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, Definitions, kb, model as modelDefinition } from '../helpers/definitions';

const suffix = randomBytes(3).toString('hex').toUpperCase();
const KEY_ENV = `LOOM_TEST_OA_KEY_${suffix}`;
const TOKEN_ENV = `LOOM_TEST_KB_TOKEN_${suffix}`;
const TOKEN = `kbtok-${randomBytes(12).toString('hex')}`;
let t: TestTemporal;
let h: Harness;
let srv: FakeOpenAIServer;

beforeAll(async () => {
  process.env[KEY_ENV] = `sk-test-${randomBytes(8).toString('hex')}`;
  process.env[TOKEN_ENV] = TOKEN;
  h = await startHarness('knowledge-credentials');
  t = h.t;
  srv = await startFakeOpenAI();
});
afterAll(async () => {
  await srv.close();
  await h?.close();
  delete process.env[KEY_ENV];
  delete process.env[TOKEN_ENV];
});

/** Every file under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? filesContaining(p, needle) : fs.readFileSync(p).includes(needle) ? [p] : [];
  });
}

test('the http backend gets the bearer token from the secret store; bundle, history, store and model requests hold only the ref', async () => {
  const seen: { url: string; auth?: string }[] = [];
  const kbSrv = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.statusCode = 401;
      res.end('{}');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ documents: [{ id: 'kb-7', title: 'Refund window', text: 'Refunds are possible for thirty days.' }] }));
  });
  await new Promise<void>((r) => kbSrv.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(kbSrv.address() as AddressInfo).port}/search`;
    // The secret's location is in the registry's tenant.md; the knowledge source names it by reference.
    const defs = new Definitions().tenant({ tenant_id: 'acme', secrets: { 'helpdesk-token': { env: TOKEN_ENV } } });
    const { agent: a, bundle: compiled } = compileAgent({
      agent_id: 'kb-credentials',
      model: modelDefinition('oa', 'openai', { supports_tools: true, openai: { base_url: srv.baseUrl, model: 'gpt-fake-1', api_key_env: KEY_ENV, request_timeout_seconds: 10 } }),
      tools: [builtin('search_knowledge')],
      knowledge: [kb('helpdesk', { type: 'http', url, credentials_ref: 'helpdesk-token' })],
    }, defs);
    srv.enqueue(toolCalls([{ name: 'search_knowledge', arguments: { query: 'refund window' } }]), reply('Thirty days [helpdesk/kb-7].'));
    const bundleJson = JSON.stringify(compiled);
    expect(bundleJson).toContain('helpdesk-token');
    expect(bundleJson).not.toContain(TOKEN);
    const bundle = await storeTestBundle(compiled);
    const id = `kb-credentials-${randomBytes(4).toString('hex')}`;
    const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: id, args: [{ bundle, agent_id: a.agent_id, input: 'how long can I get a refund?' }] });
    const res = (await h.result()) as AgentRunResult;
    expect(res.output).toBe('Thirty days [helpdesk/kb-7].');
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toMatch(/^\/search\?q=refund\+window&limit=\d+$/);
    expect(seen[0].auth).toBe(`Bearer ${TOKEN}`);
    // The search result (the document) reached the model; the token did not.
    const toolResult = JSON.stringify(srv.requests[1].body.messages);
    expect(toolResult).toContain('Refunds are possible for thirty days.');
    expect(JSON.stringify(srv.requests)).not.toContain(TOKEN);
    expect(JSON.stringify((await h.fetchHistory()).events)).not.toContain(TOKEN);
    expect(filesContaining(process.env.LOOM_STORE_DIR ?? '', TOKEN)).toEqual([]);
  } finally {
    kbSrv.close();
  }
}, 120_000);

test('readSecret: env and file locations; a missing value fails naming the ref and where it looked, never a value', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-'));
  const file = path.join(dir, 'token');
  fs.writeFileSync(file, 'from-file-value\n');
  const secrets = { a: { env: 'SECRET_A' }, b: { file }, c: { file: path.join(dir, 'missing') }, d: {} };
  expect(readSecret('a', secrets, { SECRET_A: ' from-env ' })).toBe('from-env');
  expect(readSecret('b', secrets, {})).toBe('from-file-value');
  expect(() => readSecret('a', secrets, {})).toThrow('credentials_ref `a`: the environment variable SECRET_A is not set on this worker');
  expect(() => readSecret('c', secrets, {})).toThrow(/credentials_ref `c`: the file .*missing cannot be read on this worker \(ENOENT\)/);
  expect(() => readSecret('d', secrets, {})).toThrow('names neither `env` nor `file`');
  expect(() => readSecret('zzz', secrets, {})).toThrow(/credentials_ref `zzz`: this agent's compiled tenant block does not say where it is read/);
  fs.rmSync(dir, { recursive: true, force: true });
});
