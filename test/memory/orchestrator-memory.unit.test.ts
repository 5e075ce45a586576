/** src/orchestration/memory.ts: how an orchestrator's members are given the `# Memory` block, and what is carried. */
import { blockNotGiven, carriesBlock, inputText, isRunMemoryState, memberContext, taskWithMemory } from '../../src/orchestration/memory';

const block = '# Memory\n## prefs\n- likes tea';

test('a text task gets the block appended; a JSON task stays as it is and its block is kept for member context; no block changes nothing', () => {
  expect(taskWithMemory('plan a trip', block)).toEqual({ task: `plan a trip\n\n${block}` });
  expect(taskWithMemory({ city: 'Porto' }, block)).toEqual({ task: { city: 'Porto' }, context: block });
  expect(taskWithMemory('plan a trip', '')).toEqual({ task: 'plan a trip' });
});

test('member context: only a member whose input is the JSON task itself gets the block, beside its own context', () => {
  const task = { city: 'Porto', days: 2 };
  expect(memberContext(task, { city: 'Porto', days: 2 }, undefined, block)).toEqual({ memory: block });
  expect(memberContext(task, task, { handoff: 'x' }, block)).toEqual({ handoff: 'x', memory: block });
  expect(memberContext(task, { city: 'Lisbon', days: 2 }, undefined, block)).toBeUndefined();
  expect(memberContext(task, task, undefined, undefined)).toBeUndefined();
});

test('the query is the input text (JSON text for structured input); the carried state is recognised', () => {
  expect(inputText('hello')).toBe('hello');
  expect(inputText({ a: 1 })).toBe('{"a":1}');
  expect(inputText(undefined)).toBe('null');
  expect(isRunMemoryState({ query: 'q' })).toBe(true);
  expect(isRunMemoryState({ query: 'q', context: block })).toBe(true);
  expect(isRunMemoryState(undefined)).toBe(false);
  expect(isRunMemoryState({ context: block })).toBe(false);
});

test('a member carries the block when its input or its context holds the block\'s text; a block no member carried is a run warning', () => {
  expect(carriesBlock(`plan\n\n${block}`, undefined, block)).toBe(true);
  expect(carriesBlock({ task: `plan\n\n${block}`, message: 'm' }, undefined, block)).toBe(true);
  expect(carriesBlock({ city: 'Porto' }, { memory: block }, block)).toBe(true);
  expect(carriesBlock({ item: 1 }, undefined, block)).toBe(false);
  expect(blockNotGiven({ query: 'q', block })).toBe('memory: what read_collections recalled at the start of the run reached no member (no member was given the run\'s input)');
  expect(blockNotGiven({ query: 'q', block, given: true })).toBeUndefined();
  expect(blockNotGiven({ query: 'q' })).toBeUndefined();
});
