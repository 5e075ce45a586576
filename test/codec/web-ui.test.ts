/**
 * What the Temporal Web UI shows of an encrypted run (issue 12 point 6: "`loom codec-server` serves
 * the codec endpoint so the Temporal Web UI shows decoded payloads to an operator who has the key").
 * A real dev server WITH its Web UI, pointed at the real `loom codec-server` (--ui-codec-endpoint);
 * an encrypting worker runs an agent whose input, tool call and answer carry a secret-looking
 * phrase; a real headless Chromium opens the run's page. With the codec endpoint up, the UI's Input
 * and Result show the phrase; with it down, the same page shows none of it (the history holds only
 * ciphertext, scanned too). A run that fails inside the workflow with a message quoting its answer
 * (decision 281): the page shows "Encoded failure" and, through the endpoint, the decoded message.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { Browser } from 'playwright-core';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { launchChromium } from '../helpers/browser';
import { createActivities } from '../../src/activities';
import { storeBundle } from '../../src/activities/blob-store';
import { agfReactWorkflow } from '../../src/workflows/react';
import { loomDataConverter } from '../../src/codec';
import { openStore } from '../../src/store';
import { DevServer, freePort, startDevServer } from '../../src/platform/temporal-dev-server';
import { shapeBundle, vaultBundle } from './vault-agent';
import { LoomProcess, spawnCli, userEnv } from '../cli/harness';
import { until } from '../helpers/wait';

jest.setTimeout(240_000);

const PHRASE = `SECRET-PASSPHRASE-${randomBytes(6).toString('hex').toUpperCase()}`;
const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'web-ui-codec-'));
const codecEnv = { LOOM_CODEC_KEY: `ui-2026:${randomBytes(32).toString('base64')}`, LOOM_ENCRYPTION: 'on', LOOM_STORE_DIR: path.join(dir, 'store') };
Object.assign(process.env, codecEnv);

let codec: LoomProcess;
let codecUrl: string;
let server: DevServer;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let browser: Browser;

async function startCodecServer(origins: string): Promise<{ proc: LoomProcess; url: string }> {
  const proc = spawnCli(['codec-server', '--port', '0', '--origins', origins], userEnv({ LOOM_CODEC_KEY: codecEnv.LOOM_CODEC_KEY }));
  const url = await until(() => /codec endpoint: (http:\/\/\S+)/.exec(proc.out())?.[1], () => `loom codec-server to print its endpoint: ${proc.out()} ${proc.err()}`, 60_000);
  return { proc, url };
}

/** Chromium's launch, started first: it needs nothing of the servers, so it starts while they do. */
let launching: Promise<Browser> | undefined;

beforeAll(async () => {
  launching = launchChromium();
  launching.catch(() => undefined);
  const uiPort = await freePort();
  ({ proc: codec, url: codecUrl } = await startCodecServer(`http://127.0.0.1:${uiPort}`));
  server = await startDevServer({ uiPort, uiCodecEndpoint: codecUrl, dbFile: path.join(dir, 'temporal.sqlite'), fastSqlite: true, logFile: path.join(dir, 'temporal.log') });
  t = await connectTestTemporal('web-ui', server.address);
  worker = await createTestWorker(t, createActivities({ store: openStore() }), { dataConverter: loomDataConverter() });
  running = worker.run();
  browser = await launching;
});
afterAll(async () => {
  await (browser ?? (await launching?.catch(() => undefined)))?.close();
  worker?.shutdown();
  await running;
  await t?.close();
  await server?.stop();
  codec?.child.kill('SIGTERM');
  for (const k of Object.keys(codecEnv)) delete process.env[k];
});

/**
 * The run's page as an operator opens it; its visible text once `waitFor` is on it (a text, or a
 * pattern the whole page's text matches), or after 20 s. A page that must NOT show something waits
 * for what the settled page shows instead, never for the absent text (which waited out the 20 s).
 */
async function pageText(url: string, waitFor: string | RegExp): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.getByText('Workflow Execution Started').first().waitFor({ timeout: 60_000 });
    const shown = typeof waitFor === 'string'
      ? page.getByText(waitFor).first().waitFor({ timeout: 20_000 })
      : until(async () => (waitFor.test(await page.locator('body').innerText()) ? true : undefined), `the page to match ${waitFor}`, 20_000, 250);
    await shown.catch(() => undefined);
    return await page.locator('body').innerText();
  } finally {
    await page.close();
  }
}

test('the Web UI shows the decoded input, result and workflow-raised failure through loom codec-server, and none of it without the endpoint', async () => {
  const client = new Client({ connection: t.connection, namespace: 'default', dataConverter: loomDataConverter() });
  const bundle = await storeBundle(openStore(), vaultBundle());
  const workflowId = `vault-ui-${randomBytes(4).toString('hex')}`;
  const h = await client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId, args: [{ bundle, agent_id: 'vault', input: { question: `my ${PHRASE}` } }] });
  expect((await h.result()).output).toEqual({ answer: `stored: my ${PHRASE}` });

  // The server holds ciphertext only.
  const raw = await t.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } });
  expect(Buffer.from(temporal.api.history.v1.History.encode(raw.history!).finish()).includes(Buffer.from(PHRASE))).toBe(false);

  const page = `${server.uiUrl}/namespaces/default/workflows/${workflowId}/${h.firstExecutionRunId}/history`;
  const decoded = await pageText(page, `stored: my ${PHRASE}`);
  // Input (the start payload) and Result (the completion payload), both decoded by the endpoint.
  expect(decoded).toContain(`"question": "my ${PHRASE}"`);
  expect(decoded).toContain(`stored: my ${PHRASE}`);

  // A failure the workflow raises itself, quoting the answer (an output guardrail's JSON.parse error
  // names its first ten characters): sealed in the history (decision 281), decoded on the page.
  const code = `Q${randomBytes(5).toString('hex').toUpperCase().slice(0, 9)}`;
  const shaped = shapeBundle('{{input.code}} is the code', { type: 'object' });
  const failedId = `shape-ui-${randomBytes(4).toString('hex')}`;
  const fh = await client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: failedId, args: [{ bundle: await storeBundle(openStore(), shaped), agent_id: 'shape', input: { code } }] });
  await expect(fh.result()).rejects.toThrow('Workflow execution failed');
  const failedRaw = await t.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: failedId } });
  expect(Buffer.from(temporal.api.history.v1.History.encode(failedRaw.history!).finish()).includes(Buffer.from(code))).toBe(false);
  const failedPage = `${server.uiUrl}/namespaces/default/workflows/${failedId}/${fh.firstExecutionRunId}/history`;
  const failedText = await pageText(failedPage, 'is not valid JSON');
  // The failure ("Encoded failure") with its encrypted attributes decoded: the message quoting the code
  // (the Input shows the code too, so the message itself is looked for).
  expect(failedText).toMatch(new RegExp(`"message": "output guardrail 'answer-shape' blocked the final answer: [^\\n]*${code}[^\\n]*is not valid JSON`));

  // Without the codec endpoint the same page cannot decode: the phrase is nowhere on it.
  codec.child.kill('SIGTERM');
  expect((await codec.done).code).toBe(0);
  // The page settled: Input and Result shown as the ciphertext the server holds (base64), not as
  // JSON (first it shows the raw payloads, then, the endpoint unreachable, this).
  const CIPHERTEXT = /^Input\n"[A-Za-z0-9+/=]{100,}"\nResult\n"[A-Za-z0-9+/=]{100,}"$/m;
  const sealed = await pageText(page, CIPHERTEXT);
  expect(sealed).toContain(workflowId);
  expect(sealed).not.toContain(PHRASE);
  // Input and Result are there, as the ciphertext the server holds (base64), not as JSON.
  expect(sealed).toMatch(CIPHERTEXT);
  const failedSealed = await pageText(failedPage, 'Encoded failure');
  expect(failedSealed).toContain(failedId);
  expect(failedSealed).not.toContain(code);
  expect(failedSealed).not.toContain('blocked the final answer');
  expect(failedSealed).toContain('Encoded failure');
});
