/**
 * `supports_structured_output: false` on a model file sends no output schema with any provider's
 * request (the correction turn asks for the shape instead), as for the openai provider.
 */
import { callOptions } from '../../src/activities/providers/ai-sdk';
import { ollamaRequest } from '../../src/activities/providers/ollama';
import type { ProviderRequest } from '../../src/activities/provider';

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

function request(flag?: boolean): ProviderRequest {
  return {
    instructions: 'Answer.',
    conversation: [{ role: 'user', content: 'hi' }],
    tools: [],
    prefs: { tool_choice: 'auto' },
    model: { model_id: 'm', version: '1', status: 'active', provider: 'anthropic', ...(flag === undefined ? {} : { supports_structured_output: flag }) },
    agent: { interface: { output: { schema } } },
  } as unknown as ProviderRequest;
}

test('the AI SDK providers send the schema unless the model file opts out', () => {
  const signal = new AbortController().signal;
  expect(callOptions(request(), signal).responseFormat).toEqual({ type: 'json', schema, name: 'output' });
  expect(callOptions(request(false), signal).responseFormat).toBeUndefined();
});

test('ollama sends its format unless the model file opts out', () => {
  expect(ollamaRequest(request(), 'llama').format).toEqual(schema);
  expect(ollamaRequest(request(false), 'llama').format).toBeUndefined();
});
