/**
 * The finish of the `loom` CLI, run as a user runs it (`node bin/loom.js …`): the version, every
 * command's --help listing every option its parser accepts, suggestions for misspelt commands and
 * options, bad JSON in --input as a usage error (exit 2), the shell completion scripts (the bash one
 * sourced and asked to complete), and `loom validate` without a path staying in the current registry.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadCommand } from '../../src/cli/main';
import { COMMANDS } from '../../src/cli/command-table';
import { CONNECTION_OPTIONS } from '../../src/cli/args';
import { DEMO_REGISTRY, ROOT, mapLimit, spawnCli, useBuiltCli, userEnv } from './harness';

// None of these reaches Temporal: an address nobody listens on proves it.
const env = userEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1', LOOM_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'loom-cli-finish-')) });
const loom = (args: string[], cwd?: string) => spawnCli(args, env, cwd).done;

afterAll(() => fs.rmSync(env.LOOM_HOME!, { recursive: true, force: true }));

// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
test('loom --version, -V and version print the version of package.json and exit 0', async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const rs = await Promise.all([loom(['--version']), loom(['-V']), loom(['version'])]);
  for (const r of rs) expect(r).toMatchObject({ code: 0, out: `loom ${version}\n`, err: '' });
});

test('every command --help lists every option its parser accepts (its own and the connection options), each with a sentence', async () => {
  const names = Object.keys(COMMANDS);
  const helps = await mapLimit(names, 3, (n) => loom([n, '--help']));
  for (const [i, name] of names.entries()) {
    const r = helps[i];
    expect({ name, code: r.code }).toEqual({ name, code: 0 });
    const spec = (await loadCommand(name)).run.spec;
    const lines = r.out.split('\n');
    for (const opt of [...Object.keys(spec.options), 'help', ...Object.keys(CONNECTION_OPTIONS)]) {
      // the option's line: its name, then (after its value placeholder) a sentence of its own
      const line = lines.find((l) => new RegExp(`^\\s+(-\\w, )?--${opt}( \\S+)?\\s{2,}\\S.*\\.$`).test(l));
      expect({ name, opt, line }).toEqual({ name, opt, line: expect.any(String) });
    }
  }
  // issue 30: `loom dev --help` printed only its usage line, `loom approve --help` did not name --tool
  expect(helps[names.indexOf('dev')].out).toMatch(/--verbose\s+show the worker's INFO log/);
  expect(helps[names.indexOf('approve')].out).toMatch(/--tool TOOL\s+replace the call with another of the agent's tools/);
});

test('a misspelt command or option suggests the nearest one (a swap of two letters is one edit); exit 2', async () => {
  const cases: [string[], string][] = [
    [['stauts'], "loom: unknown command 'stauts'; did you mean 'status'?"],
    [['strat'], "loom: unknown command 'strat'; did you mean 'start'?"],
    [['vresion'], "loom: unknown command 'vresion'; did you mean 'version'?"],
    [['run', 'trip-planner', '--strem'], 'loom run: unknown option --strem; did you mean --stream?'],
    [['list', '--adress', '127.0.0.1:7233'], 'loom list: unknown option --adress; did you mean --address?'],
    [['inbox', '--olderthan', '5'], 'loom inbox: unknown option --olderthan; did you mean --older-than?'],
  ];
  const rs = await mapLimit(cases, 3, ([a]) => loom(a));
  rs.forEach((r, i) => expect({ args: cases[i][0], code: r.code, err: r.err.split('\n')[0] }).toEqual({ args: cases[i][0], code: 2, err: cases[i][1] }));
});

test('invalid JSON in --input is a usage error (exit 2, with the usage line), like --args and --output', async () => {
  const [run, start, file] = await Promise.all([
    loom(['run', 'trip-planner', '--registry', DEMO_REGISTRY, '--input', '{oops']),
    loom(['start', 'trip-planner', '--registry', DEMO_REGISTRY, '--input', '[1,']),
    (async () => {
      const f = path.join(env.LOOM_HOME!, 'bad.json');
      fs.writeFileSync(f, 'not json');
      return loom(['start', 'trip-planner', '--registry', DEMO_REGISTRY, '--input', `@${f}`]);
    })(),
  ]);
  for (const [r, cmd] of [[run, 'run'], [start, 'start'], [file, 'start']] as const) {
    expect(r).toMatchObject({ code: 2, out: '', err: expect.stringMatching(new RegExp(`^loom ${cmd}: --input is not valid JSON .*\\nusage: loom ${cmd} AGENT_ID`)) });
  }
});

test('loom completion bash: sourced, it completes commands, then the options of the command', async () => {
  const r = await loom(['completion', 'bash']);
  expect(r.code).toBe(0);
  const script = path.join(env.LOOM_HOME!, 'loom.bash');
  fs.writeFileSync(script, r.out);
  const complete = (words: string[]) => {
    const cmd = `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _loom; printf '%s\\n' "\${COMPREPLY[@]}"; complete -p loom`;
    const p = spawnSync('bash', ['-c', cmd, 'bash', script], { encoding: 'utf8' });
    expect(p.stderr).toBe('');
    const lines = p.stdout.trim().split('\n');
    expect(lines.pop()).toBe('complete -o default -F _loom loom');
    return lines.filter(Boolean).sort();
  };
  expect(complete(['loom', 'sta'])).toEqual(['start', 'status']);
  expect(complete(['loom', 'co'])).toEqual(['codec-server', 'compile', 'completion']);
  expect(complete(['loom', 'approve', 'ID', '--t'])).toEqual(['--tls', '--tls-ca-path', '--tls-cert-path', '--tls-key-path', '--tls-server-name', '--tool']);
  expect(complete(['loom', 'run', 'x', '--no'])).toEqual(['--no-stream']);
  expect(complete(['loom', 'pause', 'ID', '--'])).toEqual(['--help', ...Object.keys(CONNECTION_OPTIONS).map((o) => `--${o}`)].sort());
});

test('loom completion zsh|fish name every command and option; another shell is a usage error', async () => {
  const [zsh, fish, tcsh] = await Promise.all([loom(['completion', 'zsh']), loom(['completion', 'fish']), loom(['completion', 'tcsh'])]);
  expect(zsh.code).toBe(0);
  expect(zsh.out).toMatch(/^#compdef loom\n/);
  expect(fish.code).toBe(0);
  for (const name of Object.keys(COMMANDS)) {
    expect(zsh.out).toContain(`'${name}:`);
    expect(fish.out).toContain(`-n __fish_use_subcommand -a ${name} -d `);
  }
  expect(zsh.out).toMatch(/approve\) _arguments -s .*'--tool\[replace the call/);
  expect(fish.out).toContain("complete -c loom -n '__fish_seen_subcommand_from approve' -l tool -r -F -d 'replace the call");
  expect(tcsh).toMatchObject({ code: 2, err: expect.stringContaining("loom completion: no completion for shell 'tcsh': give bash, zsh or fish") });
});

test('loom validate without a path validates the registry of the current folder only, and says which', async () => {
  const dir = fs.mkdtempSync(path.join(env.LOOM_HOME!, 'validate-'));
  // a folder that is not a registry but has registries (with errors) below it
  fs.mkdirSync(path.join(dir, 'other', 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'other', 'agents', 'broken.agent.md'), '---\nagent_id: broken\n---\n');
  const outside = await loom(['validate'], dir);
  expect(outside).toMatchObject({ code: 1, out: '', err: expect.stringMatching(/^loom validate: \S+ is not a registry \(it has none of agents\/, /) });
  expect(outside.err).not.toContain('broken');
  // named as a path, the folder of registries is still validated registry by registry
  const named = await loom(['validate', dir]);
  expect(named.code).toBe(1);
  expect(named.out).toContain('broken.agent.md');
  // inside a registry: that registry, named on stderr
  const inside = await loom(['validate'], DEMO_REGISTRY);
  expect(inside).toMatchObject({ code: 0, err: `validating the registry in ${DEMO_REGISTRY}\n0 error(s), 1 warning(s)\n` });
});
