/**
 * `loom run` and the lifecycle as a user sees it (issue 11.3), `node bin/loom.js` against the dev
 * server: a draft agent refused before anything starts, with what to do; `--allow-draft` runs it,
 * warns, and prints the output as its `interface.output.render` (markdown) says; `--json` prints JSON.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CliHarness, EXAMPLES, STACK_TRACE, startCliHarness, useBuiltCli } from '../cli/harness';

let h: CliHarness;
let registry: string;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('cli-lifecycle');
  registry = fs.mkdtempSync(path.join(os.tmpdir(), 'draft-registry-'));
  fs.cpSync(path.join(EXAMPLES, 'customer-support'), registry, { recursive: true });
  const file = path.join(registry, 'agents', 'customer-support-agent.agent.md');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^status: .*$/m, 'status: draft'));
}, 120_000);
afterAll(async () => {
  await h?.close();
  fs.rmSync(registry, { recursive: true, force: true });
});

test('a draft is refused without --allow-draft; with it, it runs, warns and prints markdown', async () => {
  const refused = await h.loom(['run', 'customer-support-agent', '--registry', registry, '--no-stream']);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/loom run: customer-support-agent v[\d.]+ has status: draft: drafts are not runnable by default; pass --allow-draft/);
  expect(refused.err).not.toMatch(STACK_TRACE);
  expect(await h.startedOnQueue()).toEqual([]);

  const ran = await h.loom(['run', 'customer-support-agent', '--registry', registry, '--no-stream', '--allow-draft']);
  expect(ran.code).toBe(0);
  expect(ran.err).toMatch(/warning: customer-support-agent v[\d.]+ is a draft, run with --allow-draft/);
  expect(ran.out).toMatch(/^\*\*answer\*\*: .+\n\*\*escalated\*\*: false/m);

  const asJson = await h.loom(['run', 'customer-support-agent', '--registry', registry, '--no-stream', '--allow-draft', '--json']);
  expect(asJson.code).toBe(0);
  expect(JSON.parse(asJson.out.trim())).toMatchObject({ escalated: false });
}, 300_000);

test('loom start refuses a draft the same way and starts it with --allow-draft', async () => {
  const refused = await h.loom(['start', 'customer-support-agent', '--registry', registry]);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/loom start: customer-support-agent v[\d.]+ has status: draft: .*pass --allow-draft to loom run or loom start/);
  expect(refused.err).not.toMatch(STACK_TRACE);
  const started = await h.loom(['start', 'customer-support-agent', '--registry', registry, '--allow-draft']);
  expect(started.code).toBe(0);
  const id = started.out.trim();
  const result = await h.loom(['result', id, '--json']);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.out.trim())).toMatchObject({ escalated: false });
}, 300_000);
