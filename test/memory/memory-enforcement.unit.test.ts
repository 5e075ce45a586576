/** src/compiler/enforcement.ts, memory entries: what AGL030 says of memory fields now that single react runs read and write it. */
import { AGENT_FIELDS, unenforcedFields } from '../../src/compiler/enforcement';

const memory = { mode: 'project', read_collections: ['prefs'], write_collections: ['prefs'] };

test('memory of an agf.react agent is enforced: no AGL030 for mode, read_collections or write_collections', () => {
  for (const f of ['memory.mode', 'memory.read_collections', 'memory.write_collections']) expect(AGENT_FIELDS[f].status).toBe('enforced');
  expect(unenforcedFields({ memory })).toEqual([]);
});

test('an agent that orchestrates members is warned that its own runs neither read nor write memory', () => {
  expect(unenforcedFields({ orchestration: { pattern: { type: 'graph' } }, memory })).toEqual([{
    at: ['memory'],
    fields: ['memory.mode', 'memory.read_collections', 'memory.write_collections'],
    notes: ['memory is read and written back by agf.react runs (`loom run`/`loom start`) and chat sessions (`loom chat`); `loom run`/`loom start` of an agent that orchestrates members does neither (its members do not read it either)'],
  }]);
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
