/**
 * The signal, update and query definitions are built without @temporalio/workflow (so a client that
 * only reads a run does not load it), yet each is exactly what the SDK's define* function returns
 * for its wire name: workflows register handlers and clients send with the same objects as before.
 * The plain names moved out of the contract's schema module are the same objects through both.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import * as definitions from '../../src/shared/definitions';
import * as contract from '../../src/shared/contract';
import * as names from '../../src/shared/names';

// Every definition with the wire name running workflows and recorded histories depend on.
const EXPECTED: Record<keyof typeof definitions, unknown> = {
  approveUpdate: defineUpdate('approveCall'),
  rejectUpdate: defineUpdate('rejectCall'),
  approveSignal: defineSignal('approve'),
  rejectSignal: defineSignal('reject'),
  pauseSignal: defineSignal('pause'),
  resumeSignal: defineSignal('resume'),
  respondEscalationUpdate: defineUpdate('respondEscalation'),
  respondSignal: defineSignal('respond'),
  statusQuery: defineQuery('status'),
  descendantDecisionsSignal: defineSignal('descendantDecisions'),
  decideUpdate: defineUpdate('decide'),
  callStreamedSignal: defineSignal('callStreamed'),
  streamedCallsQuery: defineQuery('streamedCalls'),
};

test.each(Object.keys(EXPECTED) as (keyof typeof definitions)[])('%s equals what the SDK defines for its wire name', (name) => {
  expect(definitions[name]).toStrictEqual(EXPECTED[name]);
  expect(Object.keys(definitions[name]).sort()).toEqual(Object.keys(EXPECTED[name] as object).sort());
});

test('the module exports no definition the table above does not hold', () => {
  expect(Object.keys(definitions).sort()).toEqual(Object.keys(EXPECTED).sort());
});

test('the contract re-exports the plain names: the same objects, whichever module a caller imports', () => {
  for (const key of ['DEFAULT_TASK_QUEUE', 'SEARCH_ATTRIBUTES', 'SIGNALS', 'UPDATES', 'QUERIES'] as const) {
    expect(contract[key]).toBe(names[key]);
  }
  expect(Object.keys(names).sort()).toEqual(['DEFAULT_TASK_QUEUE', 'QUERIES', 'SEARCH_ATTRIBUTES', 'SIGNALS', 'UPDATES']);
});
