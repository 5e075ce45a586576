/** Regression tests for the compiler audit: secrets, bounded diagnostics, orchestration checks, CLI options, semver, messages, YAML tags. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compareSemver, validatePaths, MAX_DIAGNOSTICS_PER_FILE } from '../../src/compiler';
import { isSecretKey, secretValueKind } from '../../src/compiler/registry';
import { run as validateCmd } from '../../src/cli/commands/validate';
import { run as compileCmd } from '../../src/cli/commands/compile';
import { run as publishCmd } from '../../src/cli/commands/publish';
import { parseCommand } from '../../src/cli/args';
import { BASE, BODY, EXAMPLE, INVALID, tempRegistry } from './helpers';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-audit-'));
const write = (name: string, content: string): string => {
  const f = path.join(tmp, name);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, content);
  return f;
};
const validate = (f: string) => validatePaths([f], { registry: BASE });

/** Captures stdout/stderr of an in-process CLI command. */
async function cli(fn: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => { out += String(s); return true; });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { err += String(s); return true; });
  try {
    return { code: await fn(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('1. secrets (SEC001)', () => {
  const secrets = [
    'sk-live-0123456789abcdefghij', 'hunter2pass', 'Token abcdef', 'eyJhbGciOiJIUzI1NiJ9', 'MIIEpAIBAAKCAQEA', 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
    'github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'ghp_0123456789abcdefghijABCDEFGHIJ', 'xoxb-1234567890-abcdefghij', 'AKIAIOSFODNN7EXAMPLE',
    'dXNlcjpwYXNzd29yZA==', '0123456789abcdef', 'sk-proj-0123456789abcdefghij', 'Server=db', 'hunter2', 'abc123',
  ];
  it('never prints the secret value in a diagnostic', () => {
    const files = fs.readdirSync(INVALID).filter((f) => f.startsWith('SEC001')).map((f) => path.join(INVALID, f));
    expect(files.length).toBeGreaterThanOrEqual(4);
    const ds = validatePaths(files, { registry: BASE }).filter((d) => d.code === 'SEC001');
    expect(ds.length).toBeGreaterThanOrEqual(18);
    for (const d of ds) {
      for (const s of secrets) expect(`${d.message} ${d.field}`).not.toContain(s);
      expect(d.message).toMatch(/_env|credentials_ref/);
    }
  });
  it('accepts env/ref keys, token counts and non-auth header values', () => {
    for (const k of ['api_key_env', 'credentials_ref', 'max_tokens', 'max_output_tokens', 'context_window_tokens', 'max_state_tokens', 'prompt_tokens', 'completion_tokens', 'secret_ref', 'password_env', 'keyword', 'allow_private_network', 'description']) {
      expect([k, isSecretKey(k)]).toEqual([k, false]);
    }
    for (const k of ['api_key', 'apiKey', 'x-api-key', 'client_secret', 'db_password', 'passwd', 'auth_token', 'private_key', 'Authorization', 'connection_string', 'aws_credentials', 'token']) {
      expect([k, isSecretKey(k)]).toEqual([k, true]);
    }
    for (const v of ['Uses Bearer authentication', 'see risk-sk-docs', 'https://api.example.com/v1', 'mailto:a@b.c', 'git@github.com:x/y']) expect([v, secretValueKind(v)]).toEqual([v, undefined]);
    const f = write('tools/ok-http.tool.md', [
      '---', 'tool_id: ok-http', 'version: 1.0.0', 'status: active', 'description: Calls an API the right way.', 'kind: http', 'input_schema: {type: object}',
      'http:', '  method: GET', '  url: "https://api.example.com/v1"', '  headers:', '    Authorization: { value_env: SERVICE_TOKEN }', '    X-Tenant: { value: acme }',
      'notes:', '  max_tokens: 500', '  credentials_ref: vault/api', '---', '',
    ].join('\n'));
    expect(validate(f).filter((d) => d.code === 'SEC001')).toEqual([]);
  });
  it('the examples stay free of SEC001', () => {
    expect(validatePaths([path.join(EXAMPLE, '..')]).filter((d) => d.code === 'SEC001')).toEqual([]);
  });
});

describe('2. bounded time and output on big files', () => {
  const head = ['---', 'spec_version: "1.2"', 'agent_id: big-agent', 'version: 1.0.0', 'status: draft'];
  const keys = Array.from({ length: 60000 }, (_, i) => `k_${String(i).padStart(6, '0')}: 1`);
  const tail = ['---', BODY];
  it('a front matter of 60,000 keys (~700 KB) validates and returns capped diagnostics', () => {
    const f = write('agents/big-agent.agent.md', [...head, ...keys, ...tail].join('\n'));
    expect(fs.statSync(f).size).toBeGreaterThan(600 * 1024);
    const ds = validate(f).filter((d) => d.file === f);
    expect(ds.length).toBe(MAX_DIAGNOSTICS_PER_FILE + 1);
    const summary = ds.find((d) => d.code === 'LOOM010')!;
    expect(summary.message).toMatch(/^\d+ more problems in this file not shown/);
    expect(Number(/^(\d+)/.exec(summary.message)![1])).toBeGreaterThan(59000);
  });
  it('the same file with a duplicate key (slow YAML path) is also bounded', () => {
    const f = write('agents/big-dup.agent.md', [...head, ...keys, 'k_000000: 2', ...tail].join('\n'));
    const ds = validate(f);
    expect(ds.filter((d) => d.code === 'LOOM005')).toHaveLength(1);
    expect(ds[0].message).toContain('duplicate key `k_000000`');
  });
});

describe('3. orchestration expressions', () => {
  it('AGF049/AGF059/AGF052/AGF048 are raised once per problem', () => {
    const ops = validate(path.join(INVALID, 'AGF049-operator.agent.md'));
    expect(ops.filter((d) => d.code === 'AGF049')).toHaveLength(3); // literal mapping {id, kind} and {contains} are fine
    expect(ops.find((d) => d.code === 'AGF049' && d.message.includes('gtee'))!.message).toContain('did you mean `gte`?');
    expect(ops.find((d) => d.code === 'AGF048')!.message).toContain('parent.input.topic');
    const graph = validate(path.join(INVALID, 'AGF059-edge-condition.agent.md'));
    expect(graph.filter((d) => d.code === 'AGF059')).toHaveLength(2);
    expect(graph.filter((d) => d.code === 'AGF052')).toHaveLength(1);
  });
});

describe('4./5. disabled agents and file names in single-file validation', () => {
  it('AGF031 at every referencing line', () => {
    expect(validate(path.join(INVALID, 'AGF031-disabled-agent.agent.md')).filter((d) => d.code === 'AGF031')).toHaveLength(5);
  });
  it('AGF003 when agent_id differs from the file name, none when it matches', () => {
    const src = fs.readFileSync(path.join(INVALID, 'AGF003b-file-name.agent.md'), 'utf8');
    expect(validate(write('agents/other-name.agent.md', src)).map((d) => d.code)).toContain('AGF003');
    expect(validate(write('agents/fx-agent.agent.md', src)).map((d) => d.code)).not.toContain('AGF003');
  });
});

describe('6./7. CLI', () => {
  const saved = process.env.LOOM_REGISTRY;
  afterEach(() => { if (saved === undefined) delete process.env.LOOM_REGISTRY; else process.env.LOOM_REGISTRY = saved; });
  it('validate checks a file against the registry it sits in, not LOOM_REGISTRY', async () => {
    const reg = tempRegistry(EXAMPLE);
    process.env.LOOM_REGISTRY = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-empty-'));
    const r = await cli(validateCmd, [path.join(reg, 'agents', 'customer-support-agent.agent.md')]);
    expect(r.err).toContain('0 error(s)');
    expect(r.code).toBe(0);
  });
  it('unknown options exit 2 with a suggestion instead of eating the next argument', async () => {
    const f = path.join(INVALID, 'AGL006-hot.agent.md');
    const v = await cli(validateCmd, ['--stict', f]);
    expect(v.code).toBe(2);
    expect(v.err).toContain('unknown option --stict; did you mean --strict?');
    const c = await cli(compileCmd, ['some-agent', '--registy', BASE]);
    expect([c.code, c.err.includes('unknown option --registy; did you mean --registry?')]).toEqual([2, true]);
    const p = await cli(publishCmd, ['some-agent', '--force']);
    expect(p.code).toBe(2);
    expect(p.err).toContain('unknown option --force');
    expect((await cli(validateCmd, [f, '--registry'])).code).toBe(2);
  });
  it('every command parses strictly (util.parseArgs): --key=value and boolean flags', () => {
    const spec = { usage: 'loom x A', options: { registry: { type: 'string' as const }, json: { type: 'boolean' as const } }, positionals: { min: 1, max: 1 } };
    expect(parseCommand(['a', '--registry=dir', '--json'], spec)).toEqual({ positionals: ['a'], flags: { registry: 'dir', json: true } });
    expect(() => parseCommand(['a', '--whatever', 'x'], spec)).toThrow('unknown option --whatever');
  });
});

describe('8. semver precedence (§11)', () => {
  it('orders pre-releases by identifiers', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0-rc.9', '1.0.0-rc.10', '1.0.0', '1.0.1-0', '1.0.1', '1.10.0'];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) expect([ordered[i], ordered[j], Math.sign(compareSemver(ordered[i], ordered[j]))]).toEqual([ordered[i], ordered[j], Math.sign(i - j)]);
    }
    expect(compareSemver('1.0.0+build.5', '1.0.0+build.1')).toBe(0);
    expect([...ordered].reverse().sort(compareSemver)).toEqual(ordered);
  });
});

describe('9. messages', () => {
  it('id and version errors explain the format instead of printing a regex', () => {
    const ds = validatePaths([path.join(INVALID, 'AGF003-agent-id.agent.md'), path.join(INVALID, 'AGF004-semver.agent.md'), path.join(INVALID, 'REG002-bad-id.model.md')], { registry: BASE });
    const msgs = ds.filter((d) => ['AGF003', 'AGF004', 'REG002'].includes(d.code)).map((d) => d.message);
    expect(msgs.length).toBeGreaterThanOrEqual(3);
    for (const m of msgs) expect(m).not.toMatch(/[\^$]|\\d|\{3,64\}/);
    expect(msgs.join('\n')).toContain('write a semantic version such as `1.2.0`');
    expect(msgs.join('\n')).toContain('e.g. `customer-support-agent`');
  });
  it('unknown fields suggest the closest key', () => {
    const src = fs.readFileSync(path.join(INVALID, 'AGF003b-file-name.agent.md'), 'utf8').replace('  temperature: 0.2', '  temperature: 0.2\n  max_tool_call: 3');
    const ds = validate(write('agents/fx-agent.agent.md', src));
    expect(ds.find((d) => d.code === 'AGF019')!.message).toContain('did you mean `max_tool_calls`?');
  });
  it('a numeric spec_version gives one error asking to quote it', () => {
    const ds = validate(path.join(INVALID, 'AGF002b-numeric-spec-version.agent.md')).filter((d) => d.code === 'AGF002');
    expect(ds).toHaveLength(1);
    expect(ds[0].message).toContain('`spec_version: "1.2"`');
  });
  it('YAML syntax errors: at most one per line and five per file', () => {
    const lines = ['---', 'agent_id: x'];
    for (let i = 0; i < 30; i++) lines.push(`k${i}: [unclosed, "x" y: : ]]`);
    const ds = validate(write('agents/bad-yaml.agent.md', [...lines, '---', BODY].join('\n'))).filter((d) => d.code === 'LOOM005');
    expect(ds.length).toBeGreaterThanOrEqual(1);
    expect(ds.length).toBeLessThanOrEqual(5);
    expect(new Set(ds.map((d) => d.line)).size).toBe(ds.length);
  });
  it('too deep nesting is reported as such, not as a stack overflow', () => {
    const deep = `---\nmeta: ${'['.repeat(20000)}${']'.repeat(20000)}\n---\n`;
    const ds = validate(write('agents/deep.agent.md', deep));
    expect(ds.length).toBeGreaterThan(0);
    for (const d of ds) expect(d.message).not.toMatch(/call stack/i);
  });
});

describe('10. YAML tags', () => {
  it('rejects tags outside the core schema, accepts core ones', () => {
    const ds = validate(path.join(INVALID, 'LOOM005c-tags.agent.md')).filter((d) => d.code === 'LOOM005');
    expect(ds.map((d) => /`(!!?\w+)`/.exec(d.message)![1])).toEqual(['!!set', '!!binary', '!!omap', '!vault']);
  });
});
