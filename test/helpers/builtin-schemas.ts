/** Input schemas of the built-in tools the tests use: what a tool file declares (test/helpers/definitions.ts) and a hand-built tool carries (test/runtime/builders.ts). */
import type { JsonSchema } from '../../src/compiled/types';

export const BUILTIN_SCHEMAS: Record<string, JsonSchema> = {
  arithmetic: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' }, op: { type: 'string', enum: ['add', 'sub', 'mul', 'div'] } },
    required: ['a', 'b', 'op'],
    additionalProperties: false,
  },
  echo: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  sleep: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
  current_time: { type: 'object', properties: {} },
  fail: { type: 'object', properties: { message: { type: 'string' } } },
  calculator: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'], additionalProperties: false },
};
