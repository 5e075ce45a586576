/** The `loom` commands: each name, the module under src/cli/commands that runs it (loaded lazily) and its one-line summary. */

export interface CommandEntry { module: string; summary: string }

/** name -> module under src/cli/commands (loaded lazily) and a one-line summary for `loom help`. */
export const COMMANDS: Record<string, CommandEntry> = {
  init: { module: 'init', summary: 'write a starter project into DIR (an agent on a scripted model, README); never overwrites' },
  validate: { module: 'validate', summary: 'validate agent definitions and registry files (exit 1 on errors)' },
  compile: { module: 'compile', summary: 'compile AGENT_ID and print the canonical JSON bundle' },
  publish: { module: 'publish', summary: 'store the compiled payload under .loom/published/<agent_id>/<version>.json' },
  dev: { module: 'dev', summary: 'embedded Temporal dev server + worker in the foreground; prints the Web UI URL' },
  run: { module: 'run', summary: 'run AGENT_ID, show live progress and print the output' },
  start: { module: 'start', summary: 'start AGENT_ID and print the workflow id' },
  status: { module: 'status', summary: 'show the status of a run' },
  approve: { module: 'approve', summary: 'approve a pending tool call (optionally with corrected --args)' },
  reject: { module: 'reject', summary: 'reject a pending tool call with --reason' },
  pause: { module: 'pause', summary: 'pause a run (no new model or tool call starts)' },
  resume: { module: 'resume', summary: 'resume a paused run' },
  cancel: { module: 'cancel', summary: 'cancel a run' },
  result: { module: 'result', summary: 'wait for and print the output of a run' },
  list: { module: 'list', summary: 'list runs' },
  delete: { module: 'delete', summary: 'delete a run and its state' },
  escalations: { module: 'escalations', summary: 'list runs waiting on a human queue' },
  respond: { module: 'respond', summary: 'answer an escalation: --queue Q --output JSON | --close' },
  inbox: { module: 'inbox', summary: 'every decision waiting on a human in every open run, with the command that answers it' },
  audit: { module: 'audit', summary: 'print the audit log of an agent or a run and verify its hash chain' },
  mcp: { module: 'mcp', summary: 'serve runs as MCP tools (start, status, result, pending decisions, approve/reject) over stdio or --http PORT' },
  diagram: { module: 'diagram', summary: 'print the topology of AGENT_ID (policy, pattern or strategy, tools) as Mermaid or --format dot' },
  describe: { module: 'describe', summary: 'the input form an external UI renders for AGENT_ID (ui, ui_hints, --locale)' },
  dispatch: { module: 'dispatch', summary: 'pick the agent whose routing matches TEXT (--explain shows the ranking), run it, fall back on failure' },
  artifacts: { module: 'artifacts', summary: 'list or print (--get NAME) the artifacts of a run; `artifacts purge [--schedule]` deletes expired ones' },
  'codec-server': { module: 'codec-server', summary: 'serve the payload codec endpoint (/decode, /encode with CORS) so the Temporal Web UI shows encrypted payloads decoded' },
  chat: { module: 'chat', summary: 'chat with AGENT_ID in a session (one line per message, Ctrl-D leaves; --session ID joins one)' },
  send: { module: 'send', summary: 'send one message to a chat session and print the reply' },
  completion: { module: 'completion', summary: 'print the shell completion script: loom completion bash|zsh|fish' },
  version: { module: 'version', summary: 'print the version of loom (also --version, -V)' },
};
