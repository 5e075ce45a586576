/**
 * `loom completion bash|zsh|fish`: print a completion script for the shell, generated from the same
 * command table (main.ts) and option specs (each command's `run.spec`) the parser uses, so it
 * completes exactly the commands and options `loom` accepts: the command first, then the options of
 * that command (its own, --help, the connection options); other words complete as file names.
 * Install: `source <(loom completion bash)`, `loom completion zsh > "${fpath[1]}/_loom"`,
 * `loom completion fish > ~/.config/fish/completions/loom.fish`.
 */
import { CONNECTION_OPTIONS, defineCommand, HELP_OPTION, type OptionSpec } from '../args';
import { UsageError } from '../../operator/errors';

interface Table { commands: { name: string; summary: string; options: Record<string, OptionSpec> }[] }

async function table(): Promise<Table> {
  const { loadCommand } = await import('../main');
  const { COMMANDS } = await import('../command-table');
  const commands = [];
  for (const [name, c] of Object.entries(COMMANDS)) {
    const spec = (await loadCommand(name)).run.spec;
    commands.push({ name, summary: c.summary, options: { ...spec.options, help: HELP_OPTION, ...CONNECTION_OPTIONS } });
  }
  return { commands };
}

const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(t: Table): string {
  const cases = t.commands.map((c) => `    ${c.name}) opts=${shellWord(Object.keys(c.options).map((o) => `--${o}`).join(' '))} ;;`);
  return [
    '# loom completion for bash: source <(loom completion bash)',
    '_loom() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" opts=""',
    '  if [ "$COMP_CWORD" -le 1 ]; then',
    `    COMPREPLY=( $(compgen -W ${shellWord(t.commands.map((c) => c.name).join(' '))} -- "$cur") )`,
    '    return 0',
    '  fi',
    '  case "${COMP_WORDS[1]}" in',
    ...cases,
    '  esac',
    '  if [[ "$cur" == -* ]]; then',
    '    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )',
    '  else',
    '    COMPREPLY=()',
    '  fi',
    '}',
    'complete -o default -F _loom loom',
    '',
  ].join('\n');
}

/** zsh _arguments specs escape `[`, `]` and `:` in descriptions. */
const zshText = (s: string) => s.replace(/[[\]:\\]/g, (c) => `\\${c}`);

export function zshScript(t: Table): string {
  const cmds = t.commands.map((c) => `    ${shellWord(`${c.name}:${c.summary.replace(/:/g, '\\:')}`)}`);
  const cases = t.commands.map((c) => {
    const specs = Object.entries(c.options).map(([n, o]) => shellWord(`--${n}[${zshText(o.help)}]${o.type === 'string' ? `:${zshText(o.value ?? 'VALUE')}:` : ''}`));
    return `    ${c.name}) _arguments -s ${specs.join(' ')} '*:file:_files' ;;`;
  });
  return [
    '#compdef loom',
    '# loom completion for zsh: loom completion zsh > "${fpath[1]}/_loom" (or: source <(loom completion zsh))',
    '_loom() {',
    '  local -a commands',
    '  commands=(',
    ...cmds,
    '  )',
    '  if (( CURRENT == 2 )); then',
    "    _describe 'loom command' commands",
    '    return',
    '  fi',
    '  words=("${words[@]:1}")',
    '  (( CURRENT-- ))',
    '  case "${words[1]}" in',
    ...cases,
    '    *) _files ;;',
    '  esac',
    '}',
    'if [ "$funcstack[1]" = "_loom" ]; then _loom "$@"; else compdef _loom loom; fi',
    '',
  ].join('\n');
}

export function fishScript(t: Table): string {
  const lines = ['# loom completion for fish: loom completion fish > ~/.config/fish/completions/loom.fish', 'complete -c loom -f'];
  for (const c of t.commands) lines.push(`complete -c loom -n __fish_use_subcommand -a ${c.name} -d ${shellWord(c.summary)}`);
  for (const c of t.commands) {
    for (const [n, o] of Object.entries(c.options)) {
      lines.push(`complete -c loom -n ${shellWord(`__fish_seen_subcommand_from ${c.name}`)} -l ${n}${o.short ? ` -s ${o.short}` : ''}${o.type === 'string' ? ' -r -F' : ''} -d ${shellWord(o.help)}`);
    }
  }
  return lines.join('\n') + '\n';
}

export const run = defineCommand(
  'completion',
  { usage: 'loom completion bash|zsh|fish', options: {}, positionals: { min: 1, max: 1, names: ['SHELL'] } },
  async (args) => {
    const shell = args.positionals[0];
    const make = { bash: bashScript, zsh: zshScript, fish: fishScript }[shell];
    if (!make) throw new UsageError(`no completion for shell '${shell}': give bash, zsh or fish`);
    process.stdout.write(make(await table()));
    return 0;
  },
);
