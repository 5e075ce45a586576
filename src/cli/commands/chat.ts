/**
 * `loom chat AGENT_ID [--registry DIR] [--session ID] [--actor ID] [--idle-timeout SECONDS]
 * [--approval-timeout S] [--on-approval-timeout reject|escalate]`: start a chat session (src/workflows/session.ts), or
 * join the running one named by --session, and talk to it: each line typed is one message, its
 * reply is printed. Ctrl-D (end of input) leaves the prompt; the session stays open for
 * `loom send SESSION_ID TEXT` until it has been idle for --idle-timeout seconds. The session is
 * AgentloomClient.openChat's; each line is its `send`.
 */
import { defineCommand, flagString } from '../args';
import { openClient } from '../client-session';
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
    const { runOptionsFromFlags, RunError } = await import('../../operator/runs');
    const { SessionStartError } = await import('../../client/agentloom-client');
    const { withEmbeddedWorker } = await import('../embedded');
    // A lazy client: the agent compiles before any connection opens; with no server configured, it
    // starts an embedded one and a worker for as long as it is open.
    const loom = await openClient(args, { local: withEmbeddedWorker });
    try {
      let chat;
      try {
        const actor = flagString(args, 'actor') ?? process.env.USER;
        const session = flagString(args, 'session');
        chat = await loom.openChat(agentId, {
          ...runOptionsFromFlags(flagString(args, 'approval-timeout'), flagString(args, 'on-approval-timeout')),
          ...(session !== undefined ? { session } : {}), ...(actor ? { actorId: actor } : {}), ...(idle !== undefined ? { idleTimeoutSeconds: idle } : {}),
        });
      } catch (err) {
        if (err instanceof SessionStartError || err instanceof RunError) { process.stderr.write(`loom chat: ${err.message}\n`); return 1; }
        throw err;
      }
      const { WorkflowUpdateFailedError } = await import('@temporalio/client');
      process.stderr.write(`session ${chat.sessionId} (${chat.joined ? 'joined' : 'started'}; ${agentId}); type a message, Ctrl-D to leave\n`);
      const readline = await import('readline');
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true, prompt: 'you> ' });
      rl.prompt();
      for await (const line of rl) {
        const text = line.trim();
        if (text) {
          try {
            process.stdout.write(replyText(await chat.send(text)) + '\n');
          } catch (err) {
            if (!(err instanceof WorkflowUpdateFailedError)) throw err;
            process.stderr.write(`loom chat: ${(err.cause as Error | undefined)?.message ?? err.message}\n`);
          }
        }
        rl.prompt();
      }
      process.stderr.write(`\nleft session ${chat.sessionId}; \`loom send ${chat.sessionId} TEXT\` continues it until it has been idle for ${chat.idleTimeoutSeconds} s\n`);
      return 0;
    } finally {
      await loom.close();
    }
  },
);
