import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CompiledTool, JsonObject } from '../../src/compiled/types';
import { MINIMAL_BUILTINS } from '../../src/activities/agent-loader';
import type { ExternalToolContext } from '../../src/activities/react-tools';
import { evaluateExpression } from '../../src/activities/calculator';
import { LEDGER_DIR, workspaceRoot } from '../../src/activities/file-tools';
import {
  builtinToolNames,
  executeTool,
  getBuiltinTool,
  registerBuiltinTool,
} from '../../src/activities/tools';

function tool(name: string, over: Partial<CompiledTool> = {}): CompiledTool {
  return {
    tool_id: over.tool_id ?? name,
    version: '1.0.0',
    status: 'active',
    description: name,
    kind: 'builtin',
    input_schema: { type: 'object' },
    approval_required: false,
    sensitive_fields: [],
    side_effects: false,
    builtin: { name },
    ...over,
  };
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'tools-'));
});

function ctx(name: string, args: JsonObject, over: Partial<ExternalToolContext> = {}): ExternalToolContext {
  return {
    tool: tool(name),
    args,
    idempotencyKey: `wf-1/${Math.random().toString(36).slice(2)}`,
    workflowId: 'wf-1',
    callId: 'c1',
    heartbeat: () => undefined,
    ...over,
  };
}
const run = (name: string, args: JsonObject, over: Partial<ExternalToolContext> = {}) => executeTool(ctx(name, args, over));

describe('builtin registry', () => {
  test('the minimal builtins are reused, not duplicated, plus calculator and the file tools', () => {
    for (const n of Object.keys(MINIMAL_BUILTINS)) expect(getBuiltinTool(n)).toBe(MINIMAL_BUILTINS[n]);
    expect(builtinToolNames()).toEqual(expect.arrayContaining(['echo', 'arithmetic', 'current_time', 'fail', 'sleep', 'calculator', 'read_file', 'write_file']));
  });

  test('minimal builtins run through executeTool', async () => {
    await expect(run('echo', { text: 'hi' })).resolves.toBe('hi');
    await expect(run('arithmetic', { a: 6, b: 7, op: 'mul' })).resolves.toBe(42);
    await expect(run('fail', { message: 'boom' })).rejects.toThrow('boom');
  });

  test('the builtin name comes from builtin.name, else the tool id', async () => {
    await expect(executeTool({ ...ctx('x', { text: 'a' }), tool: tool('x', { tool_id: 'say', builtin: { name: 'echo' } }) })).resolves.toBe('a');
    await expect(executeTool({ ...ctx('x', { text: 'b' }), tool: tool('x', { tool_id: 'echo', builtin: undefined }) })).resolves.toBe('b');
  });

  test("an unknown builtin throws 'unknown builtin' (react-tools falls back on it)", async () => {
    await expect(run('no_such_tool', {})).rejects.toThrow(/unknown builtin 'no_such_tool'/);
  });

  test('registerBuiltinTool adds a worker builtin that gets the call context; the returned function removes it', async () => {
    const seen: string[] = [];
    const off = registerBuiltinTool('greet', async (args, c) => {
      seen.push(c.idempotencyKey);
      return `hello ${String(args.name)}`;
    });
    await expect(run('greet', { name: 'ada' }, { idempotencyKey: 'k-1' })).resolves.toBe('hello ada');
    expect(seen).toEqual(['k-1']);
    off();
    await expect(run('greet', { name: 'ada' })).rejects.toThrow(/unknown builtin/);
    expect(() => registerBuiltinTool('bad name!', async () => 1)).toThrow(/invalid builtin tool name/);
  });

  test('replacing a builtin and unregistering restores the previous one', async () => {
    const off = registerBuiltinTool('echo', async () => 'replaced');
    await expect(run('echo', { text: 'x' })).resolves.toBe('replaced');
    off();
    await expect(run('echo', { text: 'x' })).resolves.toBe('x');
  });

  test('agent tools are not run by the executor', async () => {
    await expect(executeTool({ ...ctx('x', {}), tool: tool('x', { kind: 'agent', builtin: undefined, agent: { agent_id: 'a' } }) })).rejects.toThrow(/kind 'agent'/);
  });
});

describe('calculator', () => {
  test.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['10 % 4', 2],
    ['7 / 2', 3.5],
    ['0.1 + 0.2', 0.3],
    ['1e3 + .5', 1000.5],
    ['sqrt(16) + abs(-2)', 6],
    ['max(1, 5, 3) - min(4, 2)', 3],
    ['round(3.14159, 2)', 3.14],
    ['log(1000)', 3],
    ['log(8, 2)', 3],
    ['ln(e)', 1],
    ['2 * pi', 6.28318530717959],
    ['PI', 3.14159265358979],
    ['19.5 * 4', 78],
    ['-0', 0],
  ])('%s = %s', (expr, want) => {
    expect(evaluateExpression(expr)).toBe(want);
  });

  test.each([
    ['', /empty/],
    ['1 / 0', /division by zero/],
    ['5 % 0', /division by zero/],
    ['1 +', /unexpected end/],
    ['(1 + 2', /expected '\)'/],
    ['1 2', /unexpected '2'/],
    ['process.exit(1)', /unexpected character '\.'|unknown/],
    ['constructor', /unknown name/],
    ['toString(1)', /unknown function/],
    ['__proto__', /unknown name/],
    ['foo(1)', /unknown function 'foo'/],
    ['sqrt(1, 2)', /takes 1 argument/],
    ['1; 2', /unexpected character ';'/],
    ['sqrt(-1)', /not a finite number/],
    ['10 ^ 400', /not a finite number/],
    ['"1"', /unexpected character/],
  ])('%s is rejected', (expr, re) => {
    expect(() => evaluateExpression(expr)).toThrow(re);
  });

  test('deep nesting and long input are refused', () => {
    expect(() => evaluateExpression('('.repeat(500) + '1' + ')'.repeat(500))).toThrow(/nested too deeply/);
    expect(() => evaluateExpression('1+'.repeat(1500) + '1')).toThrow(/longer than/);
  });

  test('the builtin takes { expression }', async () => {
    await expect(run('calculator', { expression: '(2 + 3) * 4' })).resolves.toBe(20);
    await expect(run('calculator', {})).rejects.toThrow(/'expression' must be a string/);
  });
});

describe('workspace file tools', () => {
  let ws: string;
  let outside: string;
  let n = 0;
  beforeEach(() => {
    ws = path.join(tmp, `ws-${++n}`);
    outside = path.join(tmp, `outside-${n}`);
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  });
  const w = (args: JsonObject, over: Partial<ExternalToolContext> = {}) => run('write_file', args, { workspace: ws, ...over });
  const r = (args: JsonObject, over: Partial<ExternalToolContext> = {}) => run('read_file', args, { workspace: ws, ...over });

  test('write then read, with sub-folders created', async () => {
    await expect(w({ path: 'notes/today.md', content: 'hello' })).resolves.toEqual({ path: path.join('notes', 'today.md'), bytes_written: 5, size: 5, mode: 'overwrite' });
    expect(fs.readFileSync(path.join(ws, 'notes', 'today.md'), 'utf8')).toBe('hello');
    await expect(r({ path: 'notes/today.md' })).resolves.toBe('hello');
    await expect(r({ path: './notes/../notes/today.md' })).resolves.toBe('hello');
    await expect(r({ path: 'notes' })).resolves.toBe("folder 'notes': today.md");
  });

  test('append adds to the file; overwrite replaces it', async () => {
    await w({ path: 'log.txt', content: 'a\n' });
    await w({ path: 'log.txt', content: 'b\n', append: true });
    await w({ path: 'log.txt', content: 'c\n', mode: 'append' });
    await expect(r({ path: 'log.txt' })).resolves.toBe('a\nb\nc\n');
    await w({ path: 'log.txt', content: 'new' });
    await expect(r({ path: 'log.txt' })).resolves.toBe('new');
  });

  test('reading a missing file or an empty workspace is a clear error', async () => {
    await expect(r({ path: 'nope.txt' })).rejects.toThrow(/workspace is empty/);
    await w({ path: 'a.txt', content: 'x' });
    await expect(r({ path: 'nope.txt' })).rejects.toThrow(/'nope.txt' not found/);
  });

  test.each([
    ['../secret.txt', /escapes the workspace/],
    ['a/../../secret.txt', /escapes the workspace/],
    ['/etc/passwd', /absolute/],
    ['', /non-empty string/],
    ['.', /workspace folder itself/],
    [`${LEDGER_DIR}/x.json`, /reserved/],
    ['a\0b', /NUL/],
  ])('path %j is refused for read and write', async (p, re) => {
    await w({ path: 'ok.txt', content: 'x' });
    await expect(r({ path: p })).rejects.toThrow(re);
    await expect(w({ path: p, content: 'pwned' })).rejects.toThrow(re);
  });

  test('symlinks that leave the workspace are refused (files and folders)', async () => {
    fs.mkdirSync(ws, { recursive: true });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    fs.symlinkSync(outside, path.join(ws, 'out'));
    await expect(r({ path: 'link.txt' })).rejects.toThrow(/outside the workspace/);
    await expect(r({ path: 'out/secret.txt' })).rejects.toThrow(/outside the workspace/);
    await expect(w({ path: 'link.txt', content: 'pwned' })).rejects.toThrow(/outside the workspace/);
    await expect(w({ path: 'out/secret.txt', content: 'pwned' })).rejects.toThrow(/outside the workspace/);
    await expect(w({ path: 'out/new/deeper.txt', content: 'pwned' })).rejects.toThrow(/outside the workspace/);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    expect(fs.existsSync(path.join(outside, 'new'))).toBe(false);
  });

  test('symlinks inside the workspace are fine', async () => {
    await w({ path: 'real/data.txt', content: 'inside' });
    fs.symlinkSync(path.join(ws, 'real'), path.join(ws, 'alias'));
    await expect(r({ path: 'alias/data.txt' })).resolves.toBe('inside');
  });

  test('a workspace that is itself a symlink works', async () => {
    const real = path.join(tmp, `real-ws-${n}`);
    fs.mkdirSync(real);
    fs.symlinkSync(real, ws);
    await w({ path: 'f.txt', content: 'via link' });
    expect(fs.readFileSync(path.join(real, 'f.txt'), 'utf8')).toBe('via link');
    await expect(r({ path: 'f.txt' })).resolves.toBe('via link');
  });

  test('large files are truncated with a note; binary files are not shown', async () => {
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'big.txt'), 'x'.repeat(300 * 1024));
    const big = (await r({ path: 'big.txt' })) as string;
    expect(big.length).toBeLessThan(300 * 1024);
    expect(big).toMatch(/\[truncated: showed 262144 of 307200 bytes\]$/);
    fs.writeFileSync(path.join(ws, 'bin.dat'), Buffer.from([1, 0, 2, 3]));
    await expect(r({ path: 'bin.dat' })).resolves.toMatch(/binary file 'bin.dat', 4 bytes/);
  });

  test('write_file is idempotent per idempotency key: a retried append applies once', async () => {
    await w({ path: 'log.txt', content: 'start\n' }, { idempotencyKey: 'wf/c0' });
    const first = await w({ path: 'log.txt', content: 'once\n', append: true }, { idempotencyKey: 'wf/c1' });
    const retry = await w({ path: 'log.txt', content: 'once\n', append: true }, { idempotencyKey: 'wf/c1' });
    expect(retry).toEqual(first);
    expect(fs.readFileSync(path.join(ws, 'log.txt'), 'utf8')).toBe('start\nonce\n');
    // A different call (key) applies again.
    await w({ path: 'log.txt', content: 'twice\n', append: true }, { idempotencyKey: 'wf/c2' });
    expect(fs.readFileSync(path.join(ws, 'log.txt'), 'utf8')).toBe('start\nonce\ntwice\n');
  });

  test('a retried overwrite does not clobber a later change to the file', async () => {
    await w({ path: 'f.txt', content: 'v1' }, { idempotencyKey: 'k/1' });
    await w({ path: 'f.txt', content: 'v2' }, { idempotencyKey: 'k/2' });
    await w({ path: 'f.txt', content: 'v1' }, { idempotencyKey: 'k/1' }); // late retry of the first call
    expect(fs.readFileSync(path.join(ws, 'f.txt'), 'utf8')).toBe('v2');
  });

  test('an attempt that died after the write but before recording it is not applied twice', async () => {
    await w({ path: 'log.txt', content: 'a\nb\n' }, { idempotencyKey: 'k/0' });
    // Simulate: attempt 1 of call k/9 appended "b\n" to "a\n" and died before marking the ledger done.
    const ledger = path.join(fs.realpathSync(ws), LEDGER_DIR, `${createHash('sha256').update('k/9').digest('hex')}.json`);
    const final = createHash('sha256').update('a\nb\n').digest('hex');
    fs.writeFileSync(ledger, JSON.stringify({ state: 'pending', path: 'log.txt', final_sha256: final }));
    const res = await w({ path: 'log.txt', content: 'b\n', append: true }, { idempotencyKey: 'k/9' });
    expect(res).toMatchObject({ path: 'log.txt', size: 4 });
    expect(fs.readFileSync(path.join(ws, 'log.txt'), 'utf8')).toBe('a\nb\n');
    expect(JSON.parse(fs.readFileSync(ledger, 'utf8')).state).toBe('done');
  });

  test('no temp files are left behind', async () => {
    await w({ path: 'x.txt', content: '1' }, { idempotencyKey: 'k/x' });
    await w({ path: 'x.txt', content: '2', append: true }, { idempotencyKey: 'k/y' });
    // Beside the file: the idempotency ledger and the change log (changes.json rendered from .loom-evidence).
    expect(fs.readdirSync(ws).sort()).toEqual(['.loom-evidence', LEDGER_DIR, 'changes.json', 'x.txt']);
    expect(fs.readdirSync(path.join(ws, LEDGER_DIR)).filter((f) => !f.endsWith('.json'))).toEqual([]);
    expect(fs.readdirSync(path.join(ws, '.loom-evidence', 'changes')).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  test('the default workspace is <LOOM_HOME>/workspaces/<workflowId>, with unsafe characters replaced', async () => {
    const prev = process.env.LOOM_HOME;
    process.env.LOOM_HOME = path.join(tmp, 'home');
    try {
      expect(workspaceRoot({ workflowId: 'boss-1/tool-ask' })).toBe(path.join(tmp, 'home', 'workspaces', 'boss-1_tool-ask'));
      expect(workspaceRoot({ workflowId: '..' })).toBe(path.join(tmp, 'home', 'workspaces', '_..'));
      expect(workspaceRoot({ workflowId: 'x', workspace: path.join(tmp, 'chosen') })).toBe(path.join(tmp, 'chosen'));
      await run('write_file', { path: 'a.txt', content: 'default' }, { workflowId: 'run-42' });
      expect(fs.readFileSync(path.join(tmp, 'home', 'workspaces', 'run-42', 'a.txt'), 'utf8')).toBe('default');
    } finally {
      if (prev === undefined) delete process.env.LOOM_HOME;
      else process.env.LOOM_HOME = prev;
    }
  });
});
