/** src/compiler/enforcement.ts, memory entries: what AGL030 says of memory fields now that root runs (agf.react and orchestrators) read and write it. */
import { AGENT_FIELDS, unenforcedFields } from '../../src/compiler/enforcement';

const memory = { mode: 'project', read_collections: ['prefs'], write_collections: ['prefs'] };

test('memory of an agf.react agent is enforced: no AGL030 for mode, read_collections or write_collections', () => {
  for (const f of ['memory.mode', 'memory.read_collections', 'memory.write_collections']) expect(AGENT_FIELDS[f].status).toBe('enforced');
  expect(unenforcedFields({ memory })).toEqual([]);
});

test('an orchestrator\'s root run reads and writes memory: no AGL030, except read_collections of agf.batch, whose members never get the run input', () => {
  expect(unenforcedFields({ orchestration: { pattern: { type: 'graph' } }, memory })).toEqual([]);
  expect(unenforcedFields({ execution_policy: { id: 'agf.sequential' }, memory })).toEqual([]);
  expect(unenforcedFields({ execution_policy: { id: 'agf.batch' }, memory })).toEqual([{
    at: ['memory'],
    fields: ['memory.read_collections'],
    notes: ['an agf.batch run gives its members the items of its input, never the input itself: what `memory.read_collections` recalls at the start of a root run reaches no member (write_collections are still written back)'],
  }]);
  // A batch that only writes back, or declares mode none, is not warned.
  expect(unenforcedFields({ execution_policy: { id: 'agf.batch' }, memory: { ...memory, read_collections: [] } })).toEqual([]);
  expect(unenforcedFields({ execution_policy: { id: 'agf.batch' }, memory: { ...memory, mode: 'none' } })).toEqual([]);
  // mode none on an orchestrator declares nothing to enforce.
  expect(unenforcedFields({ orchestration: { pattern: { type: 'graph' } }, memory: { mode: 'none' } })).toEqual([]);
});

test('the agent-level writeback block stays a warning when it would mislead: enabled true, or enabled false next to write_collections', () => {
  const fields = (m: Record<string, unknown>) => unenforcedFields({ memory: m }).flatMap((u) => u.fields);
  expect(fields({ ...memory, writeback: { enabled: true, approval_required: true } })).toEqual(['memory.writeback.enabled', 'memory.writeback.approval_required']);
  expect(fields({ ...memory, writeback: { enabled: false } })).toEqual(['memory.writeback.enabled']);
  // The seed's minimal example: no write collections, writeback off: nothing is written, no warning.
  expect(fields({ mode: 'session', writeback: { enabled: false } })).toEqual([]);
});
