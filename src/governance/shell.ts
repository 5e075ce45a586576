/**
 * The `shell` builtin tool's policy, pure (no I/O): its configuration in a tool definition
 * (`builtin: {name: shell, config: {...}}`), checked by the compiler with one problem per field, and
 * what a requested command may be: split into an argument vector without a shell (quotes and
 * backslashes only), refused when it uses shell operators or matches none of the definition's
 * `allowed_commands` patterns. src/activities/shell.ts runs what this module admits.
 */

export const SHELL_BUILTIN = 'shell';

/** Defaults and bounds of the shell tool's config (timeout below runTool's 10-minute activity timeout). */
export const SHELL_LIMITS = {
  timeout_seconds: { default: 60, min: 1, max: 540 },
  max_output_bytes: { default: 64 * 1024, min: 1024, max: 1024 * 1024 },
};

/** Environment variables every command gets from the worker (when set there); the rest is scrubbed. */
export const BASE_ENV = ['PATH', 'HOME', 'LANG'] as const;

export interface ShellConfig {
  /** Glob patterns (`*` = any text) the whole command must match; at least one. */
  allowed_commands: string[];
  timeout_seconds: number;
  /** Cap per stream (stdout, stderr); the tail is kept. */
  max_output_bytes: number;
  /** Extra environment variable names passed from the worker (names only, never values). */
  env: string[];
}

export interface ShellConfigProblem {
  /** Path under `builtin.config`, e.g. `['allowed_commands', 0]`. */
  path: (string | number)[];
  message: string;
}

const CONFIG_KEYS = ['allowed_commands', 'timeout_seconds', 'max_output_bytes', 'env'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Check a shell tool's `builtin.config`; returns the config with defaults, or the problems. */
export function parseShellConfig(raw: unknown): { config?: ShellConfig; problems: ShellConfigProblem[] } {
  const problems: ShellConfigProblem[] = [];
  const example = 'e.g. `config: {allowed_commands: ["node -e *", "npm test"]}`';
  if (raw === undefined || raw === null) {
    return { problems: [{ path: [], message: `the shell tool runs only the commands its definition allows: add \`builtin.config.allowed_commands\`, ${example}` }] };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) return { problems: [{ path: [], message: `\`builtin.config\` must be a mapping, ${example}` }] };
  const c = raw as Record<string, unknown>;
  for (const k of Object.keys(c)) {
    if (!CONFIG_KEYS.includes(k)) problems.push({ path: [k], message: `unknown shell config field \`${k}\`; the fields are ${CONFIG_KEYS.join(', ')}` });
  }
  const allowed = c.allowed_commands;
  if (!Array.isArray(allowed) || allowed.length === 0) {
    problems.push({ path: ['allowed_commands'], message: `\`allowed_commands\` must be a non-empty list of command patterns (\`*\` matches any text), ${example}` });
  } else {
    allowed.forEach((p, i) => {
      if (typeof p !== 'string' || !p.trim()) problems.push({ path: ['allowed_commands', i], message: 'a command pattern must be a non-empty string, e.g. "node -e *"' });
      else if (p.trim() === '*') problems.push({ path: ['allowed_commands', i], message: 'the pattern "*" allows every command; name the program, e.g. "npm test" or "node -e *"' });
    });
  }
  const num = (k: 'timeout_seconds' | 'max_output_bytes'): number => {
    const v = c[k];
    const { default: d, min, max } = SHELL_LIMITS[k];
    if (v === undefined) return d;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      problems.push({ path: [k], message: `\`${k}\` must be an integer from ${min} to ${max} (default ${d})` });
      return d;
    }
    return v;
  };
  const timeout = num('timeout_seconds');
  const maxOut = num('max_output_bytes');
  const env: string[] = [];
  if (c.env !== undefined) {
    if (!Array.isArray(c.env)) problems.push({ path: ['env'], message: '`env` must be a list of environment variable names, e.g. [GOPATH]' });
    else c.env.forEach((n, i) => {
      if (typeof n !== 'string' || !ENV_NAME.test(n)) problems.push({ path: ['env', i], message: 'an environment variable name is letters, digits and _ (not starting with a digit), e.g. GOPATH; write the name, never the value' });
      else env.push(n);
    });
  }
  if (problems.length) return { problems };
  return { config: { allowed_commands: (allowed as string[]).map((p) => p.trim()), timeout_seconds: timeout, max_output_bytes: maxOut, env }, problems };
}

/** Does `command` (trimmed) match the glob `pattern` as a whole? `*` is any text, everything else literal. */
export function commandAllowed(command: string, pattern: string): boolean {
  const re = pattern.trim().split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${re}$`, 's').test(command.trim());
}

const OPERATORS = new Set([';', '|', '&', '<', '>', '(', ')', '$', '`', '\n', '\r']);

/**
 * Split a command into argv like a POSIX shell would for plain words: whitespace separates,
 * '…' is literal, "…" allows \" \\ \$ \` escapes, a backslash outside quotes escapes the next
 * character. No expansion, redirection or chaining: an unquoted operator is refused.
 */
export function splitCommand(command: string): { argv: string[] } | { error: string } {
  const argv: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  const s = command;
  while (i < s.length) {
    const ch = s[i];
    if (ch === ' ' || ch === '\t') {
      if (inWord) { argv.push(cur); cur = ''; inWord = false; }
      i++;
    } else if (ch === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return { error: 'unterminated single quote' };
      cur += s.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i++;
      for (;;) {
        if (i >= s.length) return { error: 'unterminated double quote' };
        const c = s[i];
        if (c === '"') { i++; break; }
        if (c === '\\' && i + 1 < s.length && '"\\$`'.includes(s[i + 1])) { cur += s[i + 1]; i += 2; continue; }
        cur += c;
        i++;
      }
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 >= s.length) return { error: 'a trailing backslash escapes nothing' };
      cur += s[i + 1];
      inWord = true;
      i += 2;
    } else if (OPERATORS.has(ch)) {
      return { error: `'${ch === '\n' || ch === '\r' ? 'a line break' : ch}' is a shell operator and commands run without a shell (no pipes, redirection, chaining or $ expansion); quote it, or run \`sh -c '…'\` if the tool allows it` };
    } else {
      cur += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) argv.push(cur);
  if (argv.length === 0) return { error: 'the command is empty' };
  return { argv };
}

/** Whether the tool may run `command`: its argv, or why it is refused (naming what is allowed). */
export function admitCommand(command: unknown, config: ShellConfig): { argv: string[] } | { refused: string } {
  if (typeof command !== 'string' || !command.trim()) return { refused: "'command' must be a non-empty string, e.g. \"node -e \\\"console.log(1)\\\"\"" };
  if (!config.allowed_commands.some((p) => commandAllowed(command, p))) {
    return { refused: `command \`${command.trim()}\` is not allowed by this tool; allowed patterns: ${config.allowed_commands.map((p) => `"${p}"`).join(', ')}` };
  }
  const split = splitCommand(command.trim());
  return 'error' in split ? { refused: `command \`${command.trim()}\` refused: ${split.error}` } : split;
}
