/**
 * `loom chat AGENT_ID [--registry DIR] [--session ID] [--actor ID] [--idle-timeout SECONDS]
 * [--approval-timeout S] [--on-approval-timeout reject|escalate]`: start a chat session (src/workflows/session.ts), or
 * join the running one named by --session, and talk to it: each line typed is one message, its
 * reply is printed. Ctrl-D (end of input) leaves the prompt; the session stays open for
 * `loom send SESSION_ID TEXT` until it has been idle for --idle-timeout seconds.
 */
import { defineCommand, flagString, registryDir } from '../args';
import { UsageError } from '../../operator/errors';
import type { SessionReply } from '../../shared/session';

/** A reply as a person reads it: text as is, anything else as JSON. */
export function replyText(r: SessionReply): string {
  return typeof r.output === 'string' ? r.output : JSON.stringify(r.output, null, 2);
}

export const run = defineCommand(
  'chat',
  {
    usage: 'loom chat AGENT_ID [--registry DIR] [--session ID] [--actor ID] [--idle-timeout SECONDS] [--approval-timeout SECONDS] [--on-approval-timeout reject|escalate]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, session: { type: 'string', value: 'ID', help: 'join the chat session ID instead of starting a new one.' }, actor: { type: 'string', value: 'ID', help: 'the actor id of the agent\'s memory collections (default $USER).' }, 'idle-timeout': { type: 'string', value: 'SECONDS', help: 'end the session after it has been idle this long.' }, 'approval-timeout': { type: 'string', value: 'SECONDS', help: 'how long a tool call waits for approval before --on-approval-timeout applies.' }, 'on-approval-timeout': { type: 'string', value: 'reject|escalate', help: 'what an approval that times out does: reject the call or escalate to a human queue.' } },
    positionals: { min: 1, max: 1, names: ['AGENT_ID'] },
  },
  async (args) => {
    const agentId = args.positionals[0];
    const idleRaw = flagString(args, 'idle-timeout');
    const idle = idleRaw === undefined ? undefined : Number(idleRaw);
    if (idle !== undefined && !(Number.isFinite(idle) && idle > 0)) throw new UsageError(`--idle-timeout must be a positive number of seconds, e.g. --idle-timeout 900 (got '${idleRaw}')`);
    const { prepareSession, SessionStartError } = await import('../../operator/sessions');
    const { runOptionsFromFlags, RunError } = await import('../../operator/runs');
    let prepared;
    try {
      prepared = await prepareSession(agentId, registryDir(args), {
        sessionId: flagString(args, 'session'), idleTimeoutSeconds: idle, actorId: flagString(args, 'actor') ?? process.env.USER,
        options: runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout')),
      });
    } catch (err) {
      if (err instanceof SessionStartError || err instanceof RunError) { process.stderr.write(`loom chat: ${err.message}\n`); return 1; }
      throw err;
    }
    const { connect } = await import('../../operator/connect');
    const { withEmbeddedWorker } = await import('../embedded');
    const { sendSessionMessage, startOrJoinSession } = await import('../../operator/sessions');
    const { WorkflowUpdateFailedError } = await import('@temporalio/client');
    const conn = await connect({ embedded: withEmbeddedWorker });
    try {
      const { handle, joined } = await startOrJoinSession(conn.client, prepared);
      process.stderr.write(`session ${handle.workflowId} (${joined ? 'joined' : 'started'}; ${agentId}); type a message, Ctrl-D to leave\n`);
      const readline = await import('readline');
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true, prompt: 'you> ' });
      rl.prompt();
      for await (const line of rl) {
        const text = line.trim();
        if (text) {
          try {
            const reply = await sendSessionMessage(conn.client, prepared, text);
            process.stdout.write(replyText(reply) + '\n');
          } catch (err) {
            if (!(err instanceof WorkflowUpdateFailedError)) throw err;
            process.stderr.write(`loom chat: ${(err.cause as Error | undefined)?.message ?? err.message}\n`);
          }
        }
        rl.prompt();
      }
      process.stderr.write(`\nleft session ${handle.workflowId}; \`loom send ${handle.workflowId} TEXT\` continues it until it has been idle for ${prepared.input.idle_timeout_seconds} s\n`);
      return 0;
    } finally {
      await conn.close();
    }
  },
);
