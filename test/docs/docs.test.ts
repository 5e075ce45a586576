/**
 * The documentation's examples run: every page of README.md and docs/ with runnable blocks (see
 * test/docs/runnable.ts for the markers) is applied in a fresh folder — its file blocks written,
 * its command blocks run with `loom` against the suite's Temporal dev server and a worker of this
 * process (test/cli/harness.ts) — and every command must succeed. A broken example fails here
 * with the page, the line of the block and what the commands printed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { CliHarness, startCliHarness } from '../cli/harness';
import { describeFailure, docPages, ROOT, runnableBlocks, runPage } from './runnable';

jest.setTimeout(300000);

let h: CliHarness;
beforeAll(async () => {
  h = await startCliHarness('docs');
});
afterAll(async () => h?.close());

const pages = docPages().filter((p) => runnableBlocks(fs.readFileSync(path.join(ROOT, p), 'utf8')).some((b) => b.kind === 'run'));

test('the README and the getting-started page have runnable examples', () => {
  expect(pages).toEqual(expect.arrayContaining(['README.md', path.join('docs', 'getting-started.md')]));
});

test.each(pages)('%s: every runnable block succeeds', async (page) => {
  const failure = await runPage(fs.readFileSync(path.join(ROOT, page), 'utf8'), h.env);
  if (failure) throw new Error(describeFailure(page, failure));
});
