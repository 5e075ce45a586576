/** Suggestions for a misspelt command or option: a swap of two neighbouring letters is one edit. */
import { nearest } from '../../src/cli/args';
import { damerauDistance, editDistance } from '../../src/shared/edit-distance';

test('damerauDistance counts a transposition as one edit; Levenshtein counts it as two', () => {
  expect(damerauDistance('stauts', 'status')).toBe(1);
  expect(editDistance('stauts', 'status')).toBe(2);
  expect(damerauDistance('stauts', 'start')).toBe(2);
  expect(damerauDistance('', 'abc')).toBe(3);
  expect(damerauDistance('kitten', 'sitting')).toBe(3);
  expect(damerauDistance('same', 'same')).toBe(0);
});

test('nearest: the closest known word within 2 edits or a prefix, else none', () => {
  const commands = ['validate', 'start', 'status', 'approve', 'version'];
  expect(nearest('stauts', commands)).toBe('status');
  expect(nearest('strat', commands)).toBe('start');
  expect(nearest('aprove', commands)).toBe('approve');
  expect(nearest('zzzzzz', commands)).toBeUndefined();
  expect(nearest('inptu', ['input', 'registry'])).toBe('input');
});
