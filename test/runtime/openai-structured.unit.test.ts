/** The openai provider's structured output: the agent's output schema as `response_format`. */
import { buildRequest, objectOutputSchema, responseFormat, strictSchema } from '../../src/activities/openai';
import type { ProviderRequest } from '../../src/activities/provider';
import type { JsonSchema } from '../../src/compiled/types';
import { compileAgent, model as modelDef, type FrontMatter } from '../helpers/definitions';

/**
 * The request an agent with this output schema sends, on an openai model with `model` fields.
 * `undefined`: a payload with no output schema at all, which a definition cannot say (the compiler
 * requires interface.output.schema), so that one field is taken out of the compiled agent.
 */
function request(schema: JsonSchema | undefined, model: FrontMatter = {}): ProviderRequest {
  const { agent: a } = compileAgent({
    agent_id: 'structured',
    model: modelDef('m', 'openai', { openai: { base_url: 'http://127.0.0.1:1/v1', model: 'gpt-x' }, ...model }),
    front: { interface: { input: { schema: { type: 'string' }, examples: ['q'] }, output: { schema: schema ?? {} } } },
  });
  if (schema === undefined) delete (a.interface.output as { schema?: JsonSchema }).schema;
  return { model: a.runtime.model, agent: a, instructions: '', conversation: [{ role: 'user', content: 'q' }], tools: [], prefs: { tool_choice: 'auto' }, turn: 0, input: 'q' } as ProviderRequest;
}

const STRICT: JsonSchema = {
  type: 'object',
  properties: { answer: { type: 'string' }, items: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } } },
  required: ['answer', 'items'],
  additionalProperties: false,
};

describe('openai response_format from interface.output.schema', () => {
  test('a strict-compatible object schema is sent with strict: true', () => {
    expect(buildRequest(request(STRICT)).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema: STRICT, strict: true } });
  });
  test('an object schema OpenAI strict mode would reject is sent unchanged with strict: false', () => {
    const loose: JsonSchema = { type: 'object', properties: { answer: { type: 'string' }, note: { type: 'string' } }, required: ['answer'] };
    expect(buildRequest(request(loose)).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema: loose, strict: false } });
  });
  test('no schema, an empty schema or a text schema: no response_format', () => {
    expect(buildRequest(request(undefined)).response_format).toBeUndefined();
    expect(buildRequest(request({})).response_format).toBeUndefined();
    expect(buildRequest(request({ type: 'string' })).response_format).toBeUndefined();
  });
  test('supports_structured_output: false on the model sends none', () => {
    expect(responseFormat(request(STRICT, { supports_structured_output: false }))).toBeUndefined();
    expect(responseFormat(request(STRICT, { supports_structured_output: true }))).toBeDefined();
  });
  test('objectOutputSchema: object type, or properties without a type', () => {
    expect(objectOutputSchema({ properties: { a: { type: 'string' } } })).toBeDefined();
    expect(objectOutputSchema({ type: 'array' })).toBeUndefined();
  });
});

describe('strictSchema (OpenAI strict json_schema rules)', () => {
  test('accepts all-required, closed objects at every depth', () => {
    expect(strictSchema(STRICT)).toBe(true);
    expect(strictSchema({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['a'], additionalProperties: false })).toBe(true);
  });
  test('rejects a missing additionalProperties: false, at the root or nested', () => {
    expect(strictSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBe(false);
    const nested = JSON.parse(JSON.stringify(STRICT)) as { properties: { items: { items: Record<string, unknown> } } };
    delete nested.properties.items.items.additionalProperties;
    expect(strictSchema(nested)).toBe(false);
  });
  test('rejects an optional property, an untyped property and unsupported keywords', () => {
    expect(strictSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'], additionalProperties: false })).toBe(false);
    expect(strictSchema({ type: 'object', properties: { a: {} }, required: ['a'], additionalProperties: false })).toBe(false);
    expect(strictSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false, allOf: [] })).toBe(false);
    expect(strictSchema({ type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } }, required: ['a'], additionalProperties: false })).toBe(false);
  });
  test('checks $defs too', () => {
    const base = { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, required: ['a'], additionalProperties: false };
    expect(strictSchema({ ...base, $defs: { x: { type: 'object', properties: { y: { type: 'string' } }, required: ['y'], additionalProperties: false } } })).toBe(true);
    expect(strictSchema({ ...base, $defs: { x: { type: 'object', properties: { y: { type: 'string' } } } } })).toBe(false);
  });
});
