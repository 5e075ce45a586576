/**
 * The shared transcript's window (src/strategies/transcript.ts): the window the store activity
 * computes from the newest entries back is the same the in-workflow transcript keeps by dropping
 * the oldest after every append, for short and long entries alike.
 */
import { capEntry, conversationText, TRANSCRIPT_LIMITS, windowOf } from '../../src/strategies/transcript';
import type { TranscriptEntry } from '../../src/strategies/transcript';

/** The in-workflow rule (strategies-transcript.ts `Transcript.add`), replayed over all entries. */
function dropOldest(entries: TranscriptEntry[]): { window: TranscriptEntry[]; omitted: number } {
  const window: TranscriptEntry[] = [];
  let omitted = 0;
  for (const e of entries) {
    window.push(capEntry(e));
    let total = window.reduce((n, x) => n + x.text.length, 0);
    while (window.length > 1 && (window.length > TRANSCRIPT_LIMITS.entries || total > TRANSCRIPT_LIMITS.total_chars)) {
      total -= window.shift()!.text.length;
      omitted += 1;
    }
  }
  return { window, omitted };
}

const entry = (i: number, len: number): TranscriptEntry => ({ agent: `A${i % 3}`, text: `${i}:`.padEnd(len, 'x'), kind: i % 5 === 0 ? 'context' : 'agent' });

test.each([
  ['short entries (the count limit)', (i: number) => 10 + (i % 7)],
  ['long entries (the character budget)', (i: number) => 2500 + ((i * 977) % 3000)],
  ['entries past the per-entry cap', (i: number) => (i % 4 === 0 ? 9000 : 300)],
  ['one huge entry after small ones', (i: number) => (i === 39 ? 50000 : 100)],
])('%s: windowOf(newest first) equals dropping the oldest after each append', (_name, len) => {
  for (const n of [1, 5, 24, 25, 40]) {
    const entries = Array.from({ length: n }, (_, i) => entry(i, len(i)));
    const expected = dropOldest(entries);
    const got = windowOf(entries.map(capEntry).reverse());
    expect(got).toEqual(expected.window);
    expect(entries.length - got.length).toBe(expected.omitted);
  }
});

test('capEntry cuts a long text once and says how much', () => {
  const e = capEntry({ agent: 'A', text: 'y'.repeat(TRANSCRIPT_LIMITS.entry_chars + 10), kind: 'agent' });
  expect(e.text.endsWith('\n[… 10 more characters]')).toBe(true);
  expect(capEntry({ agent: 'A', text: 'short', kind: 'agent' }).text).toBe('short');
});

test('conversationText: the task, then the window with the omitted count and orchestrator entries named', () => {
  const text = conversationText('do it', [{ agent: 'A', text: 'hello', kind: 'agent' }, { agent: 'orchestrator', text: 'route blocked', kind: 'context' }], 3);
  expect(text).toBe('# Task\ndo it\n\n# Conversation so far (3 earlier entries omitted)\n\n[A]\nhello\n\n[orchestrator]\nroute blocked');
  expect(conversationText('do it', [], 0)).toBe('# Task\ndo it');
});
