/**
 * Compat scenario for chat sessions (src/workflows/session.ts and session-run.ts; patch
 * `session-turns-inline`): a session that answered its first message on the recording version
 * waits for the next one with its idle timer armed. The new code replays that history, answers the
 * second message from the conversation the recording version stored (the first exchange is
 * carried; recorded before the patch it is already in the chain, after it the second message's turn
 * input records it), and the check ends the session.
 */
import { sessionMessageUpdate, SESSION_WORKFLOW_TYPE, type SessionReply } from '../../src/shared/session';
import { bundle } from '../orchestration/builders';
import { agent as reactAgent, scriptedModel } from '../runtime/builders';
import type { Scenario } from './scenarios';

/** The reply depends on what the turn's first message shows of the earlier exchange. */
const remembering = scriptedModel({
  rules: [{ when: { input_contains: '[assistant] nice to meet you' }, reply: { content: 'Noted: tea' } }],
  turns: [{ content: 'Nice to meet you' }],
});

export function sessionScenarios(): Scenario[] {
  return [{
    name: 'session-between-messages',
    waitsAt: 'a chat session that answered its first message, waiting for the next one (idle timer armed)',
    patches: ['session-turns-inline'],
    workflowType: SESSION_WORKFLOW_TYPE,
    bundle: () => bundle('c-chat', [reactAgent({ agent_id: 'c-chat', model: remembering })]),
    input: null,
    // Long enough that the idle timer cannot end the session between recording and the new code's turn.
    startArgs: { idle_timeout_seconds: 900 },
    async drive(client, rootId) {
      await client.workflow.getHandle(rootId).executeUpdate(sessionMessageUpdate, { args: [{ text: 'My name is Ada' }] });
    },
    ready: (t) => (t[0]?.status?.progress as { messages?: number } | undefined)?.messages === 1,
    async resume(client, rootId) {
      const h = client.workflow.getHandle(rootId);
      const reply = (await h.executeUpdate(sessionMessageUpdate, { args: [{ text: 'I like tea' }] })) as SessionReply;
      if (reply.output !== 'Noted: tea' || reply.message !== 2) throw new Error(`the new code answered message ${reply.message} with ${JSON.stringify(reply.output)}, expected message 2 'Noted: tea' (the first exchange carried)`);
      // A session ends on its idle timer; the check ends it here instead of waiting 900 s.
      await h.terminate('compat: session checked');
    },
    expectedError: /compat: session checked|terminated/i,
  }];
}
