/** src/runtime/memory.ts: namespace substitution, keyword search, the context block, writeback strategies. */
import { keywordSearch, memoryBlock, memoryNamespace, memoryUse, writebackApproval, writebackCallId, writebackNotWritten, writebackText, MAX_SUMMARY } from '../../src/runtime/memory';
import { memoryEntry } from '../../src/activities/memory';

const src = { session_id: 's1', message: 1, agent_id: 'a' };

test('{actorId} and {sessionId} are substituted; the default namespace is per actor; other placeholders are refused by name', () => {
  expect(memoryNamespace('prefs', 'prefs/{actorId}/{sessionId}', { actorId: 'ada', sessionId: 's1' })).toBe('prefs/ada/s1');
  expect(memoryNamespace('prefs', undefined, { actorId: 'ada', sessionId: 's1' })).toBe('prefs/ada');
  expect(() => memoryNamespace('prefs', 'prefs/{tenantId}', { actorId: 'ada', sessionId: 's1' })).toThrow("collection prefs: backend.namespace 'prefs/{tenantId}' uses {tenantId}; only {actorId} and {sessionId} are substituted");
});

test('keyword search ranks by shared words, newest first on ties, and leaves out entries sharing none', () => {
  const es = [memoryEntry('prefers email contact', src, 't1'), memoryEntry('lives in Porto', src, 't2'), memoryEntry('email weekly digest', src, 't3')];
  expect(keywordSearch(es, 'contact by email?').map((e) => e.text)).toEqual(['prefers email contact', 'email weekly digest']);
  expect(keywordSearch(es, 'weather')).toEqual([]);
  expect(keywordSearch(es, 'email', 1).map((e) => e.text)).toEqual(['email weekly digest']);
});

test('the memory block names each collection with its entries, and is empty when nothing was found', () => {
  expect(memoryBlock([{ collection_id: 'prefs', entries: [memoryEntry('prefers email', src, 't')] }, { collection_id: 'notes', entries: [] }])).toBe('# Memory\n## prefs\n- prefers email');
  expect(memoryBlock([{ collection_id: 'prefs', entries: [] }])).toBe('');
});

test('writeback strategies: output, summary (cut), exchange; an unknown one is refused naming the known ones', () => {
  expect(writebackText('output', 'q', 'a')).toBe('a');
  expect(writebackText(undefined, 'q', 'x'.repeat(MAX_SUMMARY + 5))).toBe('x'.repeat(MAX_SUMMARY) + '…');
  expect(writebackText('exchange', 'q', 'a')).toBe('user: q\nassistant: a');
  expect(() => writebackText('facts', 'q', 'a')).toThrow("writeback.strategy 'facts' is not one of output, summary, exchange");
});

test('entry ids are content addresses: the same text from the same source is one entry', () => {
  expect(memoryEntry('x', src, 't1').id).toBe(memoryEntry('x', src, 't2').id);
  expect(memoryEntry('x', src, 't1').id).not.toBe(memoryEntry('x', { ...src, message: 2 }, 't1').id);
});

test('memoryUse: reads need read collections, writes an enabled writeback, mode none turns both off', () => {
  const c = (scope: string, enabled: boolean) => ({ scope, writeback: { enabled } });
  expect(memoryUse(undefined)).toEqual({ reads: false, writes: false, sessionScoped: false });
  expect(memoryUse({ mode: 'project', read_collections: [c('project', false)], write_collections: [c('project', false)] })).toEqual({ reads: true, writes: false, sessionScoped: false });
  expect(memoryUse({ mode: 'session', read_collections: [], write_collections: [c('session', true)] })).toEqual({ reads: false, writes: true, sessionScoped: true });
  expect(memoryUse({ mode: 'none', read_collections: [c('session', true)], write_collections: [c('session', true)] })).toEqual({ reads: false, writes: false, sessionScoped: false });
});

test('a writeback waiting for approval: its call id, how it is shown, and the warning when it is not written', () => {
  const e = memoryEntry('prefers email', src, 't');
  expect(writebackCallId(1, 'prefs')).toBe('memory-1-prefs');
  expect(writebackApproval({ call_id: 'memory-1-prefs', collection_id: 'prefs', namespace: 'prefs/ada', entry: e, requested_at: 't' })).toEqual({
    call_id: 'memory-1-prefs', tool: 'memory_writeback', arguments: { collection: 'prefs', namespace: 'prefs/ada', text: 'prefers email' },
    reason: 'collection prefs has writeback.approval_required: true', requested_at: 't',
  });
  expect(writebackNotWritten('memory-1-prefs', 'prefs', { rejected: true, by: 'ops', reason: 'no' })).toBe('memory writeback memory-1-prefs to prefs not written: rejected by ops (no)');
  expect(writebackNotWritten('memory-1-prefs', 'prefs', { timeoutSeconds: 5 })).toBe('memory writeback memory-1-prefs to prefs not written: no answer within 5 s');
});
