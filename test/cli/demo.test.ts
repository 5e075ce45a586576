/**
 * The first things a newcomer runs, checked for a clean exit every time (issue 16): `npm run demo`
 * (its own embedded server and worker, bundling the workflows from source) exits 0, quietly, with
 * the answer as typed JSON; and `loom run` on the demo agent 20 times in a row against one server
 * exits 0 with no stack trace each time (the approval answered while `loom run` polls the run).
 * The two are independent (the demo has its own server, worker and LOOM_HOME) and run at the same
 * time; the 20 runs use the built CLI (test/helpers/built-cli.ts), the package a user installs.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from '../../src/platform/temporal-dev-server';
import { approveUpdate, statusQuery } from '../../src/shared/definitions';
import { CliHarness, DEMO_REGISTRY, ROOT, STACK_TRACE, spawnProcess, startCliHarness, startedId, until, useBuiltCli, userEnv } from './harness';

// At the file's root: concurrent tests start once the root's beforeAll hooks are done (not a describe's).
let h: CliHarness;
beforeAll(async () => {
  await useBuiltCli();
  h = await startCliHarness('demo20');
}, 600_000); // the first file to ask for the built CLI packs it (test/library/pack.ts)
afterAll(async () => h?.close());

test.concurrent('npm run demo exits 0 and prints only the progress, the approval it grants and the typed answer', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-demo-'));
  try {
    const env = userEnv({ LOOM_HOME: home, LOOM_UI_PORT: String(await freePort()), npm_config_loglevel: 'silent' });
    const r = await spawnProcess('npm', ['run', '--silent', 'demo'], env, ROOT).done;
    expect({ code: r.code, stack: STACK_TRACE.test(r.out + r.err) }).toEqual({ code: 0, stack: false });
    expect(r.out + r.err).not.toMatch(/webpack|asset workflow-bundle|\[INFO\]|\[WARN\]/);
    expect(r.out).toContain('demo: approving it myself, as an operator would with: npx loom approve trip-planner-');
    const answer = /\nanswer:\n([\s\S]*?)\n\n/.exec(r.out)?.[1];
    expect(JSON.parse(answer ?? 'null')).toEqual({
      destination: 'Lisbon',
      total_cost_eur: 660,
      itinerary_saved: { path: 'itinerary.md', bytes_written: 85, size: 85, mode: 'overwrite' },
    });
    expect(r.out).toMatch(/demo: server and worker stopped\.\n$/);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}, 300_000);

describe('loom run against one server', () => {
  test.concurrent('loom run on the demo agent 20 times in a row: exit 0 and no stack trace every time', async () => {
    const outcomes: { i: number; code: number | null; stack: boolean; answer: unknown }[] = [];
    for (let i = 0; i < 20; i++) {
      const run = h.spawnLoom(['run', 'trip-planner', '--registry', DEMO_REGISTRY]);
      const id = await startedId(run);
      const s = await until(`run ${i} to wait for approval`, async () => {
        const st = await h.handle(id).query(statusQuery);
        return st.pending_approvals.length ? st : undefined;
      });
      await h.handle(id).executeUpdate(approveUpdate, { args: [{ call_id: s.pending_approvals[0].call_id, by: 'test' }] });
      const r = await run.done;
      let answer: unknown;
      try { answer = JSON.parse(r.out); } catch { answer = r.out; }
      outcomes.push({ i, code: r.code, stack: STACK_TRACE.test(r.err), answer });
    }
    expect(outcomes).toEqual(outcomes.map((_, i) => ({ i, code: 0, stack: false, answer: expect.objectContaining({ total_cost_eur: 660 }) })));
  }, 600_000);
});
