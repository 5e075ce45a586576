/** A session's earlier exchanges before the new prompt: all when they fit, newest kept when they do not. */
import { sessionPrompt, SESSION_ID, DEFAULT_SESSION_CHARS } from '../../src/activities/session-history';
import type { Message } from '../../src/runtime/messages';

const ex = (i: number): Message[] => [
  { role: 'user', content: `question ${i}` },
  { role: 'assistant', content: `answer ${i}` },
];

test('a new session is the prompt alone', () => {
  expect(sessionPrompt([], 'hello')).toEqual({ text: 'hello', kept: 0, dropped: 0 });
});

test('earlier messages come first, oldest first, then the new prompt', () => {
  const r = sessionPrompt([...ex(1), ...ex(2)], 'third');
  expect(r).toEqual({ text: '# Earlier in this session\n[user] question 1\n[assistant] answer 1\n[user] question 2\n[assistant] answer 2\n\n# Now\nthird', kept: 4, dropped: 0 });
});

test('max_state_tokens trims the oldest messages first and says so', () => {
  // 10 tokens = 40 characters: the last two messages ("[user] question 3" + "[assistant] answer 3") fit.
  const r = sessionPrompt([...ex(1), ...ex(2), ...ex(3)], 'next', 10);
  expect(r.kept).toBe(2);
  expect(r.dropped).toBe(4);
  expect(r.text).toContain('(4 earlier message(s) left out to stay within the session budget)');
  expect(r.text).toContain('[user] question 3\n[assistant] answer 3');
  expect(r.text).not.toContain('question 2');
});

test('without max_state_tokens the default budget bounds the block', () => {
  const many = Array.from({ length: 400 }, (_, i) => ex(i)).flat();
  const r = sessionPrompt(many, 'now');
  expect(r.text.length).toBeLessThan(DEFAULT_SESSION_CHARS + 200);
  expect(r.dropped).toBeGreaterThan(0);
  expect(r.text.endsWith('# Now\nnow')).toBe(true);
});

test('session ids', () => {
  for (const ok of ['s1', 'user-42:chat.2026_11']) expect(SESSION_ID.test(ok)).toBe(true);
  for (const bad of ['', '-x', 'a/b', 'a b', 'x'.repeat(129)]) expect(SESSION_ID.test(bad)).toBe(false);
});
