/** `loom send SESSION_ID TEXT [--json]`: one message to a running chat session (for scripts); prints the reply. */
import { defineCommand } from '../args';
import { withRun } from '../../operator/run-control';
import { replyText } from './chat';
import { payloadToSend } from '../../operator/payloads';
import { SESSION_MESSAGE_SHAPE, SessionMessageSchema } from '../../shared/session';

export const run = defineCommand(
  'send',
  { usage: 'loom send SESSION_ID TEXT [--json]', options: { json: { type: 'boolean', help: 'print JSON instead of text.' } }, positionals: { min: 2, max: 2, names: ['SESSION_ID', 'TEXT'] } },
  async (args) => {
    const [id, text] = args.positionals;
    // The session checks the message with the same schema: an empty one is refused here, before it is sent.
    const message = payloadToSend(SessionMessageSchema, { text }, SESSION_MESSAGE_SHAPE, 'sessionMessage');
    return withRun(id, { command: 'send', action: 'send to' }, async (s) => {
      const { sessionMessageUpdate } = await import('../../shared/session');
      const reply = await s.client.workflow.getHandle(id).executeUpdate(sessionMessageUpdate, { args: [message] });
      process.stdout.write((args.flags.json === true ? JSON.stringify(reply) : replyText(reply)) + '\n');
      return 0;
    });
  },
);
