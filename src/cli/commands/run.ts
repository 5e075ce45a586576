/**
 * `loom run AGENT_ID [--input JSON|@file] [--registry DIR] [--json] [--verbose] [--approval-timeout S]
 * [--on-approval-timeout reject|escalate] [--session ID] [--stream|--no-stream] [--actor ID] [--allow-draft]`: compile, check the input (refused before anything
 * starts), start the run, show live progress (turn, tool calls, approvals awaited), print the output.
 * `--stream` (the default when stdout is a terminal and --json is not given) prints the model's text
 * as it arrives, read from the shared store (RunOptions.stream_text), never from workflow history;
 * when the text streamed last is the output, the output is not printed a second time.
 * `--session ID` continues a chat session: the run sees the session's earlier exchanges, and its
 * own prompt and answer join the session when it succeeds (src/activities/session.ts).
 * Everything goes through AgentloomClient.runDetail: the progress lines are its progress events.
 */
import { defineCommand, flagString, RUN_OPTIONS } from '../args';
import { UsageError } from '../../operator/errors';
import type { RunOutcome } from '../../client/agentloom-client';
import { openClient } from '../client-session';

export const run = defineCommand(
  'run',
  {
    usage: 'loom run AGENT_ID [--input JSON|@file] [--registry DIR] [--json] [--verbose] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate] [--session ID] [--stream|--no-stream] [--actor ID] [--allow-draft]',
    options: { ...RUN_OPTIONS, 'allow-draft': { type: 'boolean', help: 'let a draft root agent run.' }, json: { type: 'boolean', help: 'print the output as JSON, without progress lines.' }, verbose: { type: 'boolean', help: 'show the worker\'s INFO log (default: errors only).' }, session: { type: 'string', value: 'ID', help: 'continue chat session ID (the run sees its earlier exchanges).' }, stream: { type: 'boolean', help: 'print the model\'s text as it arrives (default on a terminal without --json).' }, 'no-stream': { type: 'boolean', help: 'do not print the model\'s text as it arrives.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const agentId = args.positionals[0];
    const json = args.flags.json === true;
    if (args.flags.stream === true && args.flags['no-stream'] === true) throw new UsageError('give --stream or --no-stream, not both');
    const stream = args.flags.stream === true || (args.flags['no-stream'] !== true && !json && process.stdout.isTTY === true);
    // Loaded once the arguments are known good: a usage error never loads the compiler or gRPC.
    const { runOptionsFromFlags, RunError } = await import('../../operator/runs');
    const { SessionRecordError } = await import('../../client/agentloom-client');
    const { withEmbeddedWorker } = await import('../embedded');
    // A lazy client: the agent compiles and its input is checked before any connection opens; with
    // no server configured, it starts an embedded one and a worker for as long as it is open.
    const loom = await openClient(args, { local: withEmbeddedWorker, verbose: args.flags.verbose === true });
    try {
      const options = runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout'));
      const actor = flagString(args, 'actor');
      const input = flagString(args, 'input');
      const session = flagString(args, 'session');
      const outcome = await loom.runDetail(agentId, undefined, {
        ...options, ...(actor !== undefined ? { actor_id: actor } : {}),
        // --allow-draft: a draft root agent may run (the workflow input carries it; src/governance/lifecycle.ts).
        ...(args.flags['allow-draft'] === true ? { allow_draft: true } : {}),
        ...(input !== undefined ? { inputText: input } : {}), ...(session !== undefined ? { session } : {}),
        onProgress: json ? undefined : (e) => { process.stderr.write(e.line + '\n'); },
        onText: stream ? (text) => { process.stdout.write(text); } : undefined,
      });
      await printOutput(outcome, json);
      return 0;
    } catch (err) {
      // A run of a session that succeeded but did not join it: its output, then why (exit 1).
      if (err instanceof SessionRecordError) {
        await printOutput(err.outcome, json);
        process.stderr.write(`loom run: ${err.message}\n`);
        return 1;
      }
      // Refused before it started, or failed ("ID failed: REASON").
      if (err instanceof RunError) { process.stderr.write(`loom run: ${err.message}\n`); return 1; }
      throw err;
    } finally {
      await loom.close();
    }
  },
);

/**
 * interface.output.render shapes the printed output; --json prints JSON whatever it says. An answer
 * already streamed (the last streamed text is the output) is not printed again.
 */
async function printOutput(o: RunOutcome, json: boolean): Promise<void> {
  if (!json && o.streamedOutput) return;
  const { renderOutput } = await import('../../runtime/output-render');
  process.stdout.write((json ? JSON.stringify(o.output) : renderOutput(o.output, o.agent.interface.output.render)) + '\n');
}
