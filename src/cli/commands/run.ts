/**
 * `loom run AGENT_ID [--input JSON|@file] [--registry DIR] [--json] [--verbose] [--approval-timeout S]
 * [--on-approval-timeout reject|escalate] [--session ID] [--stream|--no-stream] [--actor ID] [--allow-draft]`: compile, check the input (refused before anything
 * starts), start the run, show live progress (turn, tool calls, approvals awaited), print the output.
 * `--stream` (the default when stdout is a terminal and --json is not given) prints the model's text
 * as it arrives, read from the shared store (RunOptions.stream_text), never from workflow history;
 * when the text streamed last is the output, the output is not printed a second time.
 * `--session ID` continues a chat session: the run sees the session's earlier exchanges, and its
 * own prompt and answer join the session when it succeeds (src/activities/session.ts).
 */
import { defineCommand, flagString, registryDir, RUN_OPTIONS } from '../args';
import { UsageError } from '../../operator/errors';
import type { JsonValue } from '../../compiled/types';

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
    const { prepareRun, runOptionsFromFlags, recordSessionRun, RunError } = await import('../../operator/runs');
    const { connect } = await import('../../operator/connect');
    const { withEmbeddedWorker } = await import('../embedded');
    const { runToEnd } = await import('../../operator/run-flow');
    let prepared;
    try {
      const options = runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout'));
      // --allow-draft: a draft root agent may run (the workflow input carries it; src/governance/lifecycle.ts).
      const withActor = flagString(args, 'actor') !== undefined ? { ...options, actor_id: flagString(args, 'actor') } : options;
      const withDraft = args.flags['allow-draft'] === true ? { ...withActor, allow_draft: true } : withActor;
      prepared = await prepareRun(agentId, registryDir(args), flagString(args, 'input'), withDraft, flagString(args, 'session'));
    } catch (err) {
      if (err instanceof RunError) { process.stderr.write(`loom run: ${err.message}\n`); return 1; }
      throw err;
    }
    const say = (line: string) => { if (!json) process.stderr.write(line + '\n'); };
    if (stream) prepared.runInput.options = { ...prepared.runInput.options, stream_text: true };
    if (prepared.inputFromExample) say(`input (first of interface.input.examples): ${JSON.stringify(prepared.input)}`);
    const sess = prepared.session;
    if (sess) say(`session ${sess.id}: ${sess.prev.runs} earlier run(s), ${sess.kept} earlier message(s) given to the model${sess.dropped ? `, ${sess.dropped} left out (session budget)` : ''}`);
    const session = await connect({ embedded: withEmbeddedWorker, verbose: args.flags.verbose === true });
    try {
      if (session.embedded) say(`embedded Temporal server at ${session.address}${session.uiUrl ? `, Web UI ${session.uiUrl}` : ''}`);
      const { watchStreamText, streamedIsOutput } = await import('../../operator/progress');
      const { openBlobStore } = await import('../../activities/blob-store');
      let lastStreamed: string | undefined;
      const follow = stream ? (wid: string) => watchStreamText(openBlobStore(), wid, (text) => void process.stdout.write(text), undefined, (r) => { lastStreamed = r.text; }) : undefined;
      const end = await runToEnd(session.client, prepared, { json, uiUrl: session.uiUrl, namespace: session.namespace, embedded: session.embedded, say, follow });
      if (!end.ok) {
        process.stderr.write(`loom run: ${end.workflowId} failed: ${end.reason}\n`);
        return 1;
      }
      // interface.output.render shapes the printed output; --json prints JSON whatever it says.
      // An answer already streamed (the last streamed text is the output) is not printed again.
      const { renderOutput } = await import('../../runtime/output-render');
      if (json || lastStreamed === undefined || !streamedIsOutput(lastStreamed, end.output)) {
        process.stdout.write((json ? JSON.stringify(end.output) : renderOutput(end.output as JsonValue, prepared.root.interface.output.render)) + '\n');
      }
      try {
        await recordSessionRun(prepared, end.workflowId, end.output);
      } catch (err) {
        process.stderr.write(`loom run: the answer was not added to session ${sess?.id}: ${(err as Error).message}\n`);
        return 1;
      }
      return 0;
    } finally {
      await session.close();
    }
  },
);
