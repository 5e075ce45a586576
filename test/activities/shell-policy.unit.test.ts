/** The shell tool's policy (src/governance/shell.ts): config checks, allowed-command patterns, argv without a shell. */
import { admitCommand, commandAllowed, parseShellConfig, splitCommand } from '../../src/governance/shell';

describe('shell config', () => {
  test('defaults, and every problem with its field', () => {
    expect(parseShellConfig({ allowed_commands: ['node -e *'] }).config).toEqual({ allowed_commands: ['node -e *'], timeout_seconds: 60, max_output_bytes: 65536, env: [] });
    expect(parseShellConfig(undefined).problems[0].message).toMatch(/allowed_commands/);
    const bad = parseShellConfig({ allowed_commands: ['*', ''], timeout_seconds: 0, max_output_bytes: 'x', env: ['GO PATH'], shell: true });
    expect(bad.config).toBeUndefined();
    expect(bad.problems.map((p) => p.path.join('.'))).toEqual(['shell', 'allowed_commands.0', 'allowed_commands.1', 'timeout_seconds', 'max_output_bytes', 'env.0']);
  });
});

describe('commands', () => {
  const config = parseShellConfig({ allowed_commands: ['node -e *', "sh -c 'test -f *'", 'npm test'] }).config!;

  test('a pattern matches the whole command; * is any text', () => {
    expect(commandAllowed('node -e "process.exit(0)"', 'node -e *')).toBe(true);
    expect(commandAllowed('nodejs -e 1', 'node -e *')).toBe(false);
    expect(commandAllowed('npm test -- --watch', 'npm test')).toBe(false);
    expect(commandAllowed('a.b', 'a?b')).toBe(false);
  });

  test('argv like a shell for plain words, quotes and escapes', () => {
    expect(splitCommand(`node -e "console.log('a b')" x\\ y`)).toEqual({ argv: ['node', '-e', "console.log('a b')", 'x y'] });
    expect(splitCommand(`sh -c 'test -f out.txt && echo "ok"'`)).toEqual({ argv: ['sh', '-c', 'test -f out.txt && echo "ok"'] });
    expect(splitCommand('node -e "\\"q\\""')).toEqual({ argv: ['node', '-e', '"q"'] });
  });

  test('refused: not allowed (naming what is), shell operators, empty', () => {
    const r = admitCommand('rm -rf /', config);
    expect(r).toEqual({ refused: expect.stringContaining('not allowed by this tool; allowed patterns: "node -e *", "sh -c \'test -f *\'", "npm test"') });
    expect(admitCommand('node -e 1; rm -rf /', config)).toEqual({ refused: expect.stringContaining("';' is a shell operator") });
    expect(admitCommand('node -e $(whoami)', config)).toEqual({ refused: expect.stringContaining("'$' is a shell operator") });
    expect(admitCommand('  ', config)).toEqual({ refused: expect.stringContaining("'command' must be a non-empty string") });
    expect(admitCommand("sh -c 'test -f a.txt'", config)).toEqual({ argv: ['sh', '-c', 'test -f a.txt'] });
  });
});
