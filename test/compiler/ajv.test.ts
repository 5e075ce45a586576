/** The one Ajv setup (src/compiler/ajv.ts) used by the compiler and the activities. */
import { createAjv } from '../../src/compiler/ajv';
import { getAjv } from '../../src/compiler/validate';
import { schemaError } from '../../src/activities/agent-loader';

test('every error, formats, unknown keywords tolerated', () => {
  const v = createAjv().compile({ type: 'object', properties: { a: { type: 'string', format: 'email' }, b: { type: 'integer' } }, required: ['a', 'b'], 'x-vendor': 1 });
  expect(v({ a: 'x@example.com', b: 1 })).toBe(true);
  expect(v({ a: 'not an email', b: 'two' })).toBe(false);
  expect(v.errors?.map((e) => e.instancePath).sort()).toEqual(['/a', '/b']);
});

test('options are added to the defaults; each call is its own instance', () => {
  const a = createAjv({ verbose: true });
  expect(a.opts.allErrors).toBe(true);
  expect(a.opts.verbose).toBe(true);
  expect(createAjv()).not.toBe(createAjv());
  a.addSchema({ $id: 'same', type: 'string' });
  expect(() => createAjv().addSchema({ $id: 'same', type: 'number' })).not.toThrow();
});

test('the compiler and the activities validate formats alike', () => {
  expect(getAjv().validate({ type: 'string', format: 'date' }, '2024-02-30')).toBe(false);
  expect(schemaError({ type: 'string', format: 'date' }, '2024-02-30')).toMatch(/must match format "date"/);
  expect(schemaError({ type: 'string', format: 'date' }, '2024-02-29')).toBeUndefined();
});
