/**
 * What the Temporal Web UI (the version shipped with the project's Temporal CLI, 2.54.1) shows of a
 * run waiting for approval (issue 30 item 7). A real dev server WITH its Web UI, a run started by
 * the one start path the CLI, AgentloomClient and MCP share (startPrepared), waiting for approval of
 * `notify` (call_0_0), and a real headless Chromium:
 * - the run's page, as it opens (no tab clicked), shows the approval timer by its summary on the
 *   Timer Started event, and so does the Timeline;
 * - the User Metadata tab shows the static summary and the current details naming the agent and the
 *   decision it waits for (this UI version shows summary and details nowhere else);
 * - the workflow list, with the AgentStatus search attribute added as a column, tells the run that
 *   waits (waiting_for_approval) from one that works (running), both RUNNING to Temporal.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { connectTestTemporal, createTestWorker, TestTemporal } from '../helpers/temporal';
import { launchChromium } from '../helpers/browser';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { until } from '../helpers/wait';
import { createActivities } from '../../src/activities';
import { openStore } from '../../src/store';
import { DevServer, startDevServer } from '../../src/platform/temporal-dev-server';
import { prepareCompiled, startPrepared } from '../../src/operator/runs';
import { statusQuery } from '../../src/shared/definitions';
import { SEARCH_ATTRIBUTES } from '../../src/shared/contract';

jest.setTimeout(240_000);

const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'web-ui-run-page-'));
const previousStore = process.env.LOOM_STORE_DIR;
process.env.LOOM_STORE_DIR = path.join(dir, 'store');

let server: DevServer;
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
let browser: Browser;

beforeAll(async () => {
  server = await startDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), fastSqlite: true, logFile: path.join(dir, 'temporal.log') });
  t = await connectTestTemporal('web-ui-run-page', server.address);
  worker = await createTestWorker(t, createActivities({ store: openStore() }));
  running = worker.run();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  worker?.shutdown();
  await running;
  await t?.close();
  await server?.stop();
  if (previousStore === undefined) delete process.env.LOOM_STORE_DIR;
  else process.env.LOOM_STORE_DIR = previousStore;
});

/** A page whose workflow list shows these columns (the UI keeps them per namespace in localStorage). */
async function pageWithColumns(labels: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  const columns = JSON.stringify({ default: labels.map((label) => ({ label })) });
  await page.addInitScript({ content: `localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(columns)});` });
  return page;
}

test('a run waiting for approval: its timer named on the run page and timeline, its decision in the current details, its agent status in the list', async () => {
  const { bundle } = compileAgent({
    agent_id: 'notifier',
    model: scripted({ turns: [{ tool_calls: [{ id: 'call_0_0', name: 'notify', arguments: { text: 'hi' } }] }, { content: 'notified' }] }),
    tools: [builtin('echo', { tool_id: 'notify', approval_required: true })],
  });
  const waiting = await startPrepared(t.client, await prepareCompiled(bundle, 'notifier', () => 'go'), t.taskQueue);
  await until(async () => ((await waiting.query(statusQuery)).state === 'waiting_for_approval' ? true : undefined), 'the run to wait for approval of call_0_0');
  // A run no worker has picked up yet: RUNNING to Temporal like the waiting one, but not waiting.
  const working = await startPrepared(t.client, await prepareCompiled(bundle, 'notifier', () => 'go'), `${t.taskQueue}-unpolled`);
  const runId = (await waiting.describe()).runId;

  const page = await pageWithColumns(['Status', 'Workflow ID', SEARCH_ATTRIBUTES.status, 'Type', 'Start']);
  try {
    // The run's page as it opens: the Timer Started event carries the timer's summary.
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${waiting.workflowId}/${runId}/history`);
    await page.getByText('Timer Started').first().waitFor({ timeout: 60_000 });
    await page.getByText('approval timeout for call_0_0 (notify)').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('body').innerText()).toMatch(/Timer Started\s+Start To Fire Timeout\s+7 days\s+Summary\s+approval timeout for call_0_0 \(notify\)/);

    // The timeline labels the timer with the same summary.
    await page.getByText('Timeline', { exact: true }).first().click();
    await page.waitForURL(/\/timeline/);
    // (the event table is gone: its timer row showed "Start To Fire Timeout")
    await until(async () => {
      const text = await page.locator('body').innerText();
      return text.includes('approval timeout for call_0_0 (notify)') && !text.includes('Start To Fire Timeout') ? true : undefined;
    }, 'the timeline to label the timer');

    // User Metadata: the static summary and details from the start, the current details from the run.
    await page.getByText('User Metadata', { exact: true }).first().click();
    // Summary, details and current details are Markdown, each drawn in its own frame (typographic quotes).
    const frames = async (): Promise<string> => (await Promise.all(page.frames().slice(1).map((f) => f.locator('body').innerText().catch(() => '')))).join('\n----\n');
    const meta = await until(async () => {
      const text = await frames();
      return text.includes('notifier (agf.react): waiting for approval of notify (call_0_0)') ? text : undefined;
    }, () => 'the current details to name the decision the run waits for');
    expect(meta).toContain('notifier v1.0.0 (agf.react)');
    expect(meta).toContain('Agent notifier — Test agent notifier.');
    expect(meta).toMatch(/Waiting on a human \(1\):\s+- \(this run\) · notifier · approval call_0_0: notify \{["“]text["”]:["“]hi["”]\}/);
    expect(await page.locator('body').innerText()).toMatch(/Summary[\s\S]*Details[\s\S]*Current Details/);

    // The list: both RUNNING, told apart by the AgentStatus column.
    // (loaded again until the list holds the run's upserted status: visibility is updated asynchronously)
    const row = (id: string) => page.locator('tr', { hasText: id });
    await until(async () => {
      await page.goto(`${server.uiUrl}/namespaces/default/workflows`);
      return row(waiting.workflowId).getByText('waiting_for_approval').waitFor({ timeout: 10_000 }).then(() => true, () => undefined);
    }, 'the workflow list to show the run waiting_for_approval', 60_000);
    await row(working.workflowId).getByText('running', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await row(waiting.workflowId).innerText()).toMatch(/RUNNING[\s\S]*waiting_for_approval[\s\S]*agfReactWorkflow/);
    expect(await row(working.workflowId).innerText()).toMatch(/RUNNING[\s\S]*\brunning\b[\s\S]*agfReactWorkflow/);
  } finally {
    await page.close();
    await working.terminate();
  }

  // The timer's summary is the event's user metadata in the history itself (what the UI decodes).
  const timers = (await waiting.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes);
  expect(timers.map((e) => JSON.parse(Buffer.from(e.userMetadata!.summary!.data!).toString('utf8')))).toEqual(['approval timeout for call_0_0 (notify)']);
  await waiting.signal('approve', { call_id: 'call_0_0' });
  expect((await waiting.result()).output).toBe('notified');
});
