/** `loom send SESSION_ID TEXT [--json]`: one message to a running chat session (for scripts) through AgentloomClient.send; prints the reply. */
import { defineCommand } from '../args';
import { withClient } from '../client-session';

export const run = defineCommand(
  'send',
  { usage: 'loom send SESSION_ID TEXT [--json]', options: { json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 2, max: 2, names: ['SESSION_ID', 'TEXT'] } },
  async (args) => {
    const [id, text] = args.positionals;
    // The session checks the message with the same schema: the client refuses an empty one before it connects.
    return withClient(args, id, { command: 'send', action: 'send to' }, async (loom) => {
      const reply = await loom.send(id, text);
      const { replyText } = await import('./chat');
      process.stdout.write((args.flags.json === true ? JSON.stringify(reply) : replyText(reply)) + '\n');
      return 0;
    });
  },
);
