/**
 * The built CLI the CLI-heavy test files run (test/helpers/built-cli.ts, useBuiltCli in
 * test/cli/harness.ts): the shipped package of this checkout, outside it, with its dist/ and no
 * sources, answering as the sources do; and the harness's spawnCli really starts it once asked.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { builtLoomBin } from '../helpers/built-cli';
import { DEMO_REGISTRY, LOOM_BIN, ROOT, spawnCli, useBuiltCli, userEnv } from './harness';

jest.setTimeout(600_000); // the first file to ask for the built CLI packs it (test/library/pack.ts)

const env = userEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1', LOOM_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-built-')) });
afterAll(() => fs.rmSync(env.LOOM_HOME!, { recursive: true, force: true }));

test('the built CLI is the packed package: outside the checkout, its own dist/, no src/, and the answers of the sources', async () => {
  const bin = await builtLoomBin();
  const pkg = path.resolve(path.dirname(bin), '..');
  expect(path.relative(ROOT, pkg).startsWith('..')).toBe(true);
  expect(fs.existsSync(path.join(pkg, 'dist', 'client.js'))).toBe(true);
  expect(fs.existsSync(path.join(pkg, 'src'))).toBe(false);
  expect(JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);

  // Before useBuiltCli the harness runs the sources; after it, the package's bin, with the same answers.
  const args = [['--version'], ['validate', DEMO_REGISTRY, '--json'], ['validate', path.join(ROOT, 'test', 'fixtures', 'invalid', 'AGF004-semver.agent.md'), '--json']];
  const fromSource = await Promise.all(args.map((a) => spawnCli(a, env)));
  expect(fromSource.map((p) => p.child.spawnargs[1])).toEqual(args.map(() => LOOM_BIN));
  const keep = process.env.LOOM_TEST_CLI_FROM_SOURCE;
  delete process.env.LOOM_TEST_CLI_FROM_SOURCE;
  try {
    await useBuiltCli();
  } finally {
    if (keep !== undefined) process.env.LOOM_TEST_CLI_FROM_SOURCE = keep;
  }
  const built = await Promise.all(args.map((a) => spawnCli(a, env)));
  expect(built.map((p) => p.child.spawnargs[1])).toEqual(args.map(() => bin));
  const answers = async (ps: typeof built) => (await Promise.all(ps.map((p) => p.done))).map((r) => ({ code: r.code, out: r.out, err: r.err }));
  const [src, dist] = [await answers(fromSource), await answers(built)];
  expect(dist).toEqual(src);
  expect(src.map((r) => r.code)).toEqual([0, 0, 1]);
});
