/**
 * The registry commands (validate, compile, publish) and the parsing every command shares, run as a
 * user runs them (`node bin/loom.js …`): exit codes and messages for success and each failure; an
 * unknown or misspelt option is refused by every command (exit 2, with a suggestion) instead of
 * being ignored; help and unknown commands.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { COMMANDS } from '../../src/cli/command-table';
import { DEMO_REGISTRY, ROOT, mapLimit, spawnCli, useBuiltCli, userEnv } from './harness';

// These commands never reach Temporal: an address nobody listens on proves it.
const env = userEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1', LOOM_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-commands-')) });
const loom = (args: string[], cwd?: string) => spawnCli(args, env, cwd).done;
const INVALID = path.join(ROOT, 'test', 'fixtures', 'invalid');

afterAll(() => fs.rmSync(env.LOOM_HOME!, { recursive: true, force: true }));

// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
test('every command refuses an unknown option with exit 2, naming it, before doing anything', async () => {
  const names = Object.keys(COMMANDS);
  const results = await mapLimit(names, 3, (n) => loom([n, 'x', '--bogus-flag']));
  results.forEach((r, i) => {
    expect({ command: names[i], code: r.code, out: r.out, err: r.err.split('\n')[0] }).toEqual({
      command: names[i],
      code: 2,
      out: '',
      err: expect.stringMatching(new RegExp(`^loom ${names[i]}: (unknown option --bogus-flag|unexpected argument 'x')`)),
    });
  });
  // The misspellings of issue 16, and one per option kind, suggest the right option.
  const typos: [string[], string][] = [
    [['approve', 'ID', 'CALL', '--arg', '{"a":1}'], 'unknown option --arg; did you mean --args?'],
    [['run', 'trip-planner', '--inptu', '{}'], 'unknown option --inptu; did you mean --input?'],
    [['start', 'trip-planner', '--registy', DEMO_REGISTRY], 'unknown option --registy; did you mean --registry?'],
    [['reject', 'ID', 'CALL', '--reson', 'x'], 'unknown option --reson; did you mean --reason?'],
    [['status', 'ID', '--jsn'], 'unknown option --jsn; did you mean --json?'],
    [['delete', 'ID', '--forse'], 'unknown option --forse; did you mean --force?'],
    [['validate', '--stict'], 'unknown option --stict; did you mean --strict?'],
    [['run', 'trip-planner', '--approval-timout', '5'], 'unknown option --approval-timout; did you mean --approval-timeout?'],
    [['pause', 'ID', '--force'], 'unknown option --force; this command takes no options'],
  ];
  const typoResults = await mapLimit(typos, 3, ([a]) => loom(a));
  typoResults.forEach((r, i) => expect({ args: typos[i][0], code: r.code, err: r.err.split('\n')[0] }).toEqual({ args: typos[i][0], code: 2, err: expect.stringContaining(typos[i][1]) }));
});

test('missing arguments, values and stray words are usage errors (exit 2) with the usage line', async () => {
  const cases: [string[], string][] = [
    [['approve', 'ID'], 'loom approve: missing CALL_ID\nusage: loom approve ID CALL_ID [--args JSON] [--tool TOOL]\n'],
    [['run'], 'loom run: missing AGENT_ID\n'],
    [['status', 'a', 'b'], "loom status: unexpected argument 'b'\nusage: loom status ID [--json]\n"],
    [['list', '--json=yes'], 'loom list: option --json takes no value\n'],
    [['approve', 'ID', 'CALL', '--args'], 'loom approve: option --args needs a value'],
    [['reject', 'ID', 'CALL', '--reason', '--json'], 'loom reject: option --reason needs a value'],
  ];
  const rs = await mapLimit(cases, 3, ([a]) => loom(a));
  rs.forEach((r, i) => expect({ args: cases[i][0], code: r.code, err: r.err }).toEqual({ args: cases[i][0], code: 2, err: expect.stringContaining(cases[i][1]) }));
});

test('help, --help per command, no command, unknown command', async () => {
  const [help, none, unknown, approveHelp] = await Promise.all([loom(['help']), loom([]), loom(['aprove']), loom(['approve', '--help'])]);
  expect(help.code).toBe(0);
  for (const n of Object.keys(COMMANDS)) expect(help.out).toContain(`  ${n} `);
  expect(none.code).toBe(2);
  expect(unknown).toMatchObject({ code: 2, err: expect.stringMatching(/^loom: unknown command 'aprove'; did you mean 'approve'\?/) });
  expect(approveHelp).toMatchObject({ code: 0, out: expect.stringMatching(/^usage: loom approve ID CALL_ID \[--args JSON\] \[--tool TOOL\]\n/) });
});

test('loom validate: exit 0 without errors (warnings printed), 1 with file:line:col diagnostics, --json, --strict', async () => {
  const [ok, bad, asJson] = await Promise.all([
    loom(['validate', DEMO_REGISTRY]),
    loom(['validate', path.join(INVALID, 'AGF004-semver.agent.md'), '--registry', path.join(ROOT, 'test', 'fixtures', 'registries', 'base')]),
    loom(['validate', '--registry', DEMO_REGISTRY, '--json']),
  ]);
  // The demo's only finding: it declares logs (AGL005 wants observability on a side-effect agent)
  // that no OpenTelemetry exporter acts on yet, which AGL030 says instead of staying silent.
  expect(ok).toMatchObject({ code: 0, err: '0 error(s), 1 warning(s)\n' });
  expect(ok.out).toMatch(/^examples\/demo\/agents\/trip-planner\.agent\.md:\d+:\d+: warning AGL030: `observability\.logs\.enabled`, `observability\.logs\.level` are declared but not enforced by the runtime/);
  expect(bad.code).toBe(1);
  expect(bad.out).toMatch(/AGF004-semver\.agent\.md:\d+:\d+: error AGF004: .*semantic version/);
  expect(bad.err).toMatch(/^[1-9]\d* error\(s\)/);
  expect(asJson).toMatchObject({ code: 0 });
  expect((JSON.parse(asJson.out) as { code: string }[]).map((d) => d.code)).toEqual(['AGL030']);
  // A registry whose only problem is a warning passes, and fails with --strict.
  const warn = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-warn-'));
  fs.cpSync(DEMO_REGISTRY, warn, { recursive: true });
  const agent = path.join(warn, 'agents', 'trip-planner.agent.md');
  fs.writeFileSync(agent, fs.readFileSync(agent, 'utf8').replace('  temperature: 0\n', '  temperature: 0.9\n'));
  const [lenient, strict] = await Promise.all([loom(['validate', warn]), loom(['validate', warn, '--strict'])]);
  fs.rmSync(warn, { recursive: true, force: true });
  expect(lenient).toMatchObject({ code: 0, out: expect.stringMatching(/trip-planner\.agent\.md:\d+:\d+: warning AGL006: /), err: '0 error(s), 2 warning(s)\n' });
  expect(strict).toMatchObject({ code: 1, err: '0 error(s), 2 warning(s)\n' });
});

test('loom compile: the canonical bundle on stdout or --out; exit 1 with diagnostics for an unknown agent', async () => {
  const out = path.join(env.LOOM_HOME!, 'bundle.json');
  const [printed, written, missing] = await Promise.all([
    loom(['compile', 'trip-planner', '--registry', DEMO_REGISTRY]),
    loom(['compile', 'trip-planner', '--registry', DEMO_REGISTRY, '--out', out]),
    loom(['compile', 'no-such-agent', '--registry', DEMO_REGISTRY]),
  ]);
  expect(printed.code).toBe(0);
  const bundle = JSON.parse(printed.out);
  expect(bundle.agents['trip-planner']).toMatchObject({ agent_id: 'trip-planner', version: '1.0.0' });
  expect(written).toMatchObject({ code: 0, out: '' });
  expect(fs.readFileSync(out, 'utf8')).toBe(printed.out);
  expect(missing.code).toBe(1);
  expect(missing.err).toContain('no-such-agent');
});

test('loom publish: published, then already published; a changed payload under the same version is refused', async () => {
  const reg = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-publish-'));
  try {
    fs.cpSync(DEMO_REGISTRY, reg, { recursive: true });
    const first = await loom(['publish', 'trip-planner', '--registry', reg]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^published trip-planner@1\.0\.0 \S+ -> .*trip-planner[/\\]1\.0\.0\.json\n$/);
    const again = await loom(['publish', 'trip-planner', '--registry', reg]);
    expect(again).toMatchObject({ code: 0, out: expect.stringMatching(/^already published trip-planner@1\.0\.0/) });
    const agent = path.join(reg, 'agents', 'trip-planner.agent.md');
    fs.writeFileSync(agent, fs.readFileSync(agent, 'utf8').replace('- Only use the numbers given in the input.', '- Only use the numbers given in the input, always.'));
    const changed = await loom(['publish', 'trip-planner', '--registry', reg]);
    expect(changed.code).toBe(1);
    expect(changed.err).toMatch(/error \w+: .*1\.0\.0/);
  } finally {
    fs.rmSync(reg, { recursive: true, force: true });
  }
});
