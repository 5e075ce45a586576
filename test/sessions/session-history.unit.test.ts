/** The first message of a session turn (pure): history and scratchpad trimmed to one state budget. */
import { sessionTurnPrompt } from '../../src/activities/session-history';
import type { Message } from '../../src/runtime/messages';

const earlier: Message[] = [
  { role: 'user', content: 'My name is Ada' },
  { role: 'assistant', content: 'Nice to meet you' },
];
const notes = [{ turn: 1, note: 'state {"city":"Porto"}' }];

test('session history and a visible scratchpad come before the new message', () => {
  const p = sessionTurnPrompt(earlier, notes, 'Where am I going?', { history: 'session', scratchpadVisible: true });
  expect(p.text).toBe('# Earlier in this session\n[user] My name is Ada\n[assistant] Nice to meet you\n\n# Working state\n(turn 1) state {"city":"Porto"}\n\n# Now\nWhere am I going?');
  expect(p).toMatchObject({ kept: 2, dropped: 0, notesKept: 1, notesDropped: 0 });
});

test('scratchpad_visible_to_model: false keeps the notes out of the model context', () => {
  const p = sessionTurnPrompt(earlier, notes, 'Hi', { history: 'session', scratchpadVisible: false });
  expect(p.text).not.toContain('Working state');
  expect(p.notesKept).toBe(0);
});

test('session_history: ephemeral gives the model the new message only', () => {
  expect(sessionTurnPrompt(earlier, [], 'Hi', { history: 'ephemeral', scratchpadVisible: false }).text).toBe('Hi');
});

test('max_state_tokens covers history and working state: the newest notes are kept first, then the newest messages', () => {
  // 12 tokens = 48 characters: the note (32) fits, then only the newest message (28) would overflow.
  const p = sessionTurnPrompt(earlier, notes, 'Hi', { history: 'session', scratchpadVisible: true, maxStateTokens: 12 });
  expect(p).toMatchObject({ kept: 0, dropped: 2, notesKept: 1 });
  expect(p.text).toBe('# Working state\n(turn 1) state {"city":"Porto"}\n\n# Now\nHi');
});
