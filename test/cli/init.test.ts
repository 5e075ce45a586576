/**
 * `loom init [DIR]`, the starter (src/cli/commands/init.ts), run as a user runs it: it writes the
 * project (package, worker, client, tool in code, registry, test), whose registry validates with no
 * error — the one warning says the `kind: code` tool is checked by the worker, which `loom validate`
 * cannot see; it never overwrites — any file it would write that exists already stops it before it
 * writes anything. test/library/starter.test.ts installs the packed package into it and runs its
 * `npm test` (the agent end to end).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CliHarness, startCliHarness } from './harness';

const FILES = [
  '.gitignore', 'README.md', 'agents/assistant.agent.md', 'models/assistant-model.model.md', 'package.json', 'roles/assistant-role.iam.md',
  'src/client.ts', 'src/dev.ts', 'src/settings.ts', 'src/tools.ts', 'src/worker.ts', 'test/assistant.test.ts', 'tools/count_words.tool.md', 'tsconfig.json',
];

/** Every file under `dir`, relative, sorted. */
function listFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

let h: CliHarness;
let work: string;
beforeAll(async () => {
  h = await startCliHarness('init');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-init-'));
});
afterAll(async () => {
  await h?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('loom init DIR writes the starter project; its registry validates with no error, the code tool\'s check deferred to the worker', async () => {
  const init = await h.loom(['init', 'my-agents'], { cwd: work });
  expect({ code: init.code, err: init.err }).toEqual({ code: 0, err: '' });
  const dir = path.join(work, 'my-agents');
  expect(listFiles(dir)).toEqual(FILES);
  for (const f of FILES) expect(init.out).toContain(`wrote ${path.join('my-agents', f)}`);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; scripts: Record<string, string> };
  expect(pkg.name).toBe('my-agents');
  expect(pkg.dependencies['@agentloom/core']).toMatch(/^\^\d+\.\d+\.\d+/);
  expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['dev', 'start', 'client', 'test']));

  const validate = await h.loom(['validate'], { cwd: dir });
  expect(validate.code).toBe(0);
  expect(validate.err).toContain('0 error(s), 1 warning(s)');
  expect(`${validate.out}${validate.err}`).toMatch(/AGL060: tool `count_words` runs `count_words`, a tool written in code/);
});

test('loom init refuses to overwrite: one existing file stops it before anything is written, and is named; a DIR that is a file is refused', async () => {
  // A folder with the user's own README: nothing else is created, the README is untouched.
  const dir = path.join(work, 'has-readme');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'README.md'), 'my own notes\n');
  const refused = await h.loom(['init'], { cwd: dir });
  expect(refused.code).toBe(1);
  expect(refused.out).toBe('');
  expect(refused.err).toMatch(/^loom init: README\.md already exists in \S+; nothing was written/);
  expect(listFiles(dir)).toEqual(['README.md']);
  expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('my own notes\n');

  // A second init over a whole starter names every file and changes none.
  const first = await h.loom(['init', 'twice'], { cwd: work });
  expect(first.code).toBe(0);
  const twice = path.join(work, 'twice');
  fs.appendFileSync(path.join(twice, 'agents', 'assistant.agent.md'), '\n- An edit of mine.\n');
  const before = FILES.map((f) => fs.readFileSync(path.join(twice, f), 'utf8'));
  const again = await h.loom(['init', 'twice'], { cwd: work });
  expect(again.code).toBe(1);
  for (const f of FILES) expect(again.err).toContain(path.join(...f.split('/')));
  expect(FILES.map((f) => fs.readFileSync(path.join(twice, f), 'utf8'))).toEqual(before);

  const file = path.join(work, 'a-file');
  fs.writeFileSync(file, 'x');
  const notDir = await h.loom(['init', file], { cwd: work });
  expect(notDir).toMatchObject({ code: 1, out: '', err: `loom init: ${file} is not a folder\n` });
});
