import { parsePath, checkPath, resolvePath, resolveInputMapping, expandBatchInputs, batchItemCount, PathError, jsonEqual } from '../../src/orchestration/paths';
import { evaluateCondition, applyOperator, checkCondition, isOperatorObject } from '../../src/orchestration/conditions';
import { parseOutputFrom, selectOutput, mergeOutputs, checkOutputFrom } from '../../src/orchestration/output-from';
import type { ExecutionContext } from '../../src/orchestration/paths';
import type { ConditionGroup } from '../../src/compiled/types';

const ctx: ExecutionContext = {
  parent: { input: { query: 'q', topic: 't', language: 'ja', items: [{ value: 1 }, { value: 2 }, { value: 3 }], nested: { a: { b: 7 } }, tags: ['x', 'y'] } },
  outputs: { researcher: { findings: 'f', meta: { title: 'T' } }, checker: { score: 0.85 }, plain: 'text out' },
};

describe('path expressions', () => {
  test('parse', () => {
    expect(parsePath('parent.input.query')).toEqual({ source: 'parent', direction: 'input', fields: ['query'], iterateAt: undefined });
    expect(parsePath('parent.input.items.[].value').iterateAt).toBe(1);
    expect(() => parsePath('parent.query')).toThrow(PathError);
    expect(() => parsePath('parent.input.items[].value')).toThrow(/segment of its own/);
    expect(() => parsePath('parent.input.a.[].b.[]')).toThrow(/more than once/);
    expect(() => parsePath('x')).toThrow();
  });
  test('resolve nested and whole values', () => {
    expect(resolvePath(ctx, 'parent.input.query')).toBe('q');
    expect(resolvePath(ctx, 'researcher.output.findings')).toBe('f');
    expect(resolvePath(ctx, 'researcher.output.meta.title')).toBe('T');
    expect(resolvePath(ctx, 'parent.input.nested.a.b')).toBe(7);
    expect(resolvePath(ctx, 'parent.input.items.1.value')).toBe(2);
    expect(resolvePath(ctx, 'plain.output')).toBe('text out');
    expect(resolvePath(ctx, 'missing.output.x')).toBeUndefined();
    expect(resolvePath(ctx, 'parent.input.nope.deeper')).toBeUndefined();
    expect(() => resolvePath(ctx, 'parent.input.items.[].value')).toThrow(/only in agf.batch/);
  });
  test('checkPath validates aliases declared before and .[] placement', () => {
    expect(checkPath('parent.input.x', [], false)).toBeUndefined();
    expect(checkPath('writer.output.draft', ['writer'], false)).toBeUndefined();
    expect(checkPath('editor.output.draft', ['writer'], false)).toMatch(/not a step declared before/);
    expect(checkPath('parent.input.items.[].v', [], false)).toMatch(/only in agf.batch/);
    expect(checkPath('parent.input.items.[].v', [], true)).toBeUndefined();
    expect(checkPath('parent.output.x', [], false)).toMatch(/parent.input/);
    expect(checkPath('writer.input.x', ['writer'], false)).toMatch(/output/);
  });
  test('input_mapping builds an object, omits unresolved, falls back without mapping', () => {
    expect(resolveInputMapping(ctx, { q: 'parent.input.query', f: 'researcher.output.findings', z: 'nobody.output.x' }, null)).toEqual({ q: 'q', f: 'f' });
    expect(resolveInputMapping(ctx, undefined, 'fallback')).toBe('fallback');
    expect(resolveInputMapping(ctx, {}, 5)).toBe(5);
  });
  test('batch expansion with .[] zips iterating fields and broadcasts fixed ones', () => {
    expect(expandBatchInputs(ctx, { item: 'parent.input.items.[].value', q: 'parent.input.query' })).toEqual([
      { item: 1, q: 'q' }, { item: 2, q: 'q' }, { item: 3, q: 'q' },
    ]);
    expect(expandBatchInputs(ctx, { whole: 'parent.input.items.[]' })).toEqual([{ whole: { value: 1 } }, { whole: { value: 2 } }, { whole: { value: 3 } }]);
    expect(batchItemCount(ctx, { item: 'parent.input.items.[].value' })).toBe(3);
    expect(() => expandBatchInputs(ctx, { q: 'parent.input.query' })).toThrow(/at least one/);
    expect(() => expandBatchInputs(ctx, { q: 'parent.input.query.[]' })).toThrow(/not an array/);
    expect(() => expandBatchInputs(ctx, { a: 'parent.input.items.[]', b: 'parent.input.tags.[]' })).toThrow(/iterates/);
  });
  test('jsonEqual ignores key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(null, undefined)).toBe(false);
  });
});

describe('ConditionGroup', () => {
  test('every operator', () => {
    expect(applyOperator('eq', 1, 1)).toBe(true);
    expect(applyOperator('eq', { a: 1 }, { a: 1 })).toBe(true);
    expect(applyOperator('ne', 1, 2)).toBe(true);
    expect(applyOperator('gt', 2, 1)).toBe(true);
    expect(applyOperator('gt', 1, 1)).toBe(false);
    expect(applyOperator('gte', 1, 1)).toBe(true);
    expect(applyOperator('lt', 0.5, 0.8)).toBe(true);
    expect(applyOperator('lte', 0.8, 0.8)).toBe(true);
    expect(applyOperator('gt', '2', 1)).toBe(false);
    expect(applyOperator('gt', undefined, 1)).toBe(false);
    expect(applyOperator('in', 'ja', ['zh', 'ja'])).toBe(true);
    expect(applyOperator('in', 'en', ['zh', 'ja'])).toBe(false);
    expect(applyOperator('in', undefined, ['zh'])).toBe(false);
    expect(applyOperator('not_in', 'en', ['zh', 'ja'])).toBe(true);
    expect(applyOperator('not_in', 'zh', ['zh', 'ja'])).toBe(false);
    expect(applyOperator('contains', 'hello world', 'world')).toBe(true);
    expect(applyOperator('contains', ['a', 'b'], 'b')).toBe(true);
    expect(applyOperator('contains', { k: 1 }, 'k')).toBe(true);
    expect(applyOperator('contains', 5, 'k')).toBe(false);
    expect(applyOperator('exists', 0, true)).toBe(true);
    expect(applyOperator('exists', undefined, true)).toBe(false);
    expect(applyOperator('exists', undefined, false)).toBe(true);
    expect(applyOperator('matches', 'ABC-123', '^[A-Z]+-\\d+$')).toBe(true);
    expect(applyOperator('matches', 'abc', '^[A-Z]+$')).toBe(false);
    expect(applyOperator('matches', 'abc', '(')).toBe(false);
  });
  test('single group is AND, literal equality', () => {
    expect(evaluateCondition({ args_match: { 'parent.input.language': 'ja', 'checker.output.score': { gte: 0.8 } } }, ctx)).toBe(true);
    expect(evaluateCondition({ args_match: { 'parent.input.language': 'ja', 'checker.output.score': { gte: 0.9 } } }, ctx)).toBe(false);
    expect(evaluateCondition({ args_match: { 'parent.input.language': { in: ['zh', 'ja', 'ko'] } } }, ctx)).toBe(true);
    expect(evaluateCondition({ args_match: { 'checker.output.score': { gt: 0.5, lt: 0.9 } } }, ctx)).toBe(true);
    expect(evaluateCondition({ args_match: { 'parent.input.tags': ['x', 'y'] } }, ctx)).toBe(true);
    expect(evaluateCondition({ args_match: {} }, ctx)).toBe(true);
  });
  test('array is OR of ANDs', () => {
    const c: ConditionGroup[] = [
      { args_match: { 'parent.input.language': 'en' } },
      { args_match: { 'parent.input.language': 'ja', 'parent.input.query': 'q' } },
    ];
    expect(evaluateCondition(c, ctx)).toBe(true);
    expect(evaluateCondition([{ args_match: { 'parent.input.language': 'en' } }], ctx)).toBe(false);
    expect(evaluateCondition([], ctx)).toBe(false);
    expect(evaluateCondition(undefined, ctx)).toBe(false);
  });
  test('literal object that is not an operator object compares by equality', () => {
    expect(isOperatorObject({ gte: 1 })).toBe(true);
    expect(isOperatorObject({ title: 'T' })).toBe(false);
    expect(evaluateCondition({ args_match: { 'researcher.output.meta': { title: 'T' } } }, ctx)).toBe(true);
  });
  test('checkCondition reports bad operators and regexes', () => {
    expect(checkCondition({ args_match: { a: { gte: 1, bogus: 2 } } })[0]).toMatch(/unknown operator/);
    expect(checkCondition({ args_match: { a: { matches: '(' } } })[0]).toMatch(/regular expression/);
    expect(checkCondition({ args_match: { a: { in: 'x' } } })[0]).toMatch(/array/);
    expect(checkCondition({ args_match: { a: 1 } })).toEqual([]);
  });
});

describe('output_from', () => {
  const outputs = { writer: { d: 1 }, editor: { d: 2 }, last: 'alias-called-last' };
  test('keyword before alias', () => {
    expect(parseOutputFrom('last', 'merge')).toEqual({ kind: 'strategy', strategy: 'last' });
    expect(parseOutputFrom('editor', 'last')).toEqual({ kind: 'agent', alias: 'editor' });
    expect(parseOutputFrom({ agent: 'last' }, 'last')).toEqual({ kind: 'agent', alias: 'last' });
    expect(parseOutputFrom(undefined, 'merge')).toEqual({ kind: 'strategy', strategy: 'merge' });
    expect(parseOutputFrom({ custom_transform: 'myorg.sum' }, 'last')).toEqual({ kind: 'transform', name: 'myorg.sum' });
    expect(parseOutputFrom({ strategy: 'first', description: 'x' }, 'last')).toEqual({ kind: 'strategy', strategy: 'first' });
    expect(() => parseOutputFrom({ agent: 'a', strategy: 'last' }, 'last')).toThrow(/exactly one/);
    expect(() => parseOutputFrom({ description: 'only' }, 'last')).toThrow(/exactly one/);
  });
  test('merge follows declaration order, not completion order', () => {
    const m = mergeOutputs(['writer', 'editor'], { editor: 2, writer: 1 });
    expect(Object.keys(m)).toEqual(['writer', 'editor']);
    const sel = selectOutput({ kind: 'strategy', strategy: 'merge' }, ['editor', 'writer'], outputs, ['writer', 'editor']);
    expect(Object.keys(sel as object)).toEqual(['editor', 'writer']);
  });
  test('first/last by completion order, agent by alias', () => {
    expect(selectOutput({ kind: 'strategy', strategy: 'first' }, ['writer', 'editor'], outputs, ['editor', 'writer'])).toEqual({ d: 2 });
    expect(selectOutput({ kind: 'strategy', strategy: 'last' }, ['writer', 'editor'], outputs, ['writer', 'editor'])).toEqual({ d: 2 });
    expect(selectOutput({ kind: 'agent', alias: 'last' }, ['last'], outputs, ['last'])).toBe('alias-called-last');
    expect(() => selectOutput({ kind: 'agent', alias: 'nobody' }, [], outputs, [])).toThrow(/no output/);
  });
  test('checkOutputFrom', () => {
    expect(checkOutputFrom('writer', ['writer'])).toEqual([]);
    expect(checkOutputFrom('merge', [])).toEqual([]);
    expect(checkOutputFrom('ghost', ['writer'])[0]).toMatch(/neither/);
  });
});
