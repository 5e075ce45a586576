/** Pure parts of provider failure handling (errors.ts) and of the openai provider's mapping. */
import { classifyFailure, parseRetryAfter, toApplicationFailure } from '../../src/activities/errors';
import { buildRequest, INVALID_ARGUMENTS_KEY, parseToolArguments, redact, safeEndpoint, toChatMessages } from '../../src/activities/openai';
import type { ProviderRequest } from '../../src/activities/provider';
import { compileAgent, model } from '../helpers/definitions';

const ep = 'http://127.0.0.1:9/v1/chat/completions (model m)';

describe('parseRetryAfter', () => {
  test('delay-seconds, fractional seconds, retry-after-ms and HTTP dates', () => {
    expect(parseRetryAfter({ 'Retry-After': '1' })).toBe(1000);
    expect(parseRetryAfter({ 'retry-after': ' 2.5 ' })).toBe(2500);
    expect(parseRetryAfter({ 'retry-after-ms': '350', 'retry-after': '9' })).toBe(350);
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'Retry-After': 'Mon, 01 Jan 2024 00:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'Retry-After': 'Sun, 31 Dec 2023 23:59:00 GMT' }, now)).toBe(0);
  });
  test('absent or garbage gives undefined', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': null })).toBeUndefined();
  });
});

describe('classifyFailure', () => {
  test('429 is retryable and carries Retry-After', () => {
    const v = classifyFailure({ kind: 'http', status: 429, headers: { 'retry-after': '1' }, endpoint: ep });
    expect(v).toMatchObject({ retryable: true, type: 'ModelRateLimited', retryAfterMs: 1000 });
    expect(v.message).toContain(ep);
  });
  test.each([500, 502, 503, 408, 409, 425])('%i is retryable', (status) => {
    expect(classifyFailure({ kind: 'http', status, endpoint: ep }).retryable).toBe(true);
  });
  test.each([400, 401, 403, 404, 422, 418])('%i is not retryable', (status) => {
    const v = classifyFailure({ kind: 'http', status, endpoint: ep, credentialEnv: 'MY_KEY' });
    expect(v.retryable).toBe(false);
    expect(v.type).toBe(`ModelHttp${status}`);
  });
  test('401 and 403 name the credential env var', () => {
    expect(classifyFailure({ kind: 'http', status: 401, endpoint: ep, credentialEnv: 'MY_KEY' }).message).toContain('env MY_KEY');
    expect(classifyFailure({ kind: 'http', status: 403, endpoint: ep, credentialEnv: 'MY_KEY' }).message).toContain('env MY_KEY');
  });
  test('timeouts and connection errors are retryable', () => {
    expect(classifyFailure({ kind: 'timeout', endpoint: ep })).toMatchObject({ retryable: true, type: 'ModelTimeout' });
    expect(classifyFailure({ kind: 'connection', endpoint: ep, message: 'ECONNREFUSED' })).toMatchObject({ retryable: true, type: 'ModelConnectionError' });
    expect(classifyFailure({ kind: 'http', status: 503, endpoint: 'x', subject: 'tool' }).type).toBe('ToolHttp503');
  });
  test('toApplicationFailure: nextRetryDelay only for retryable verdicts', () => {
    const rl = toApplicationFailure(classifyFailure({ kind: 'http', status: 429, headers: { 'retry-after': '2' }, endpoint: ep }));
    expect(rl.nonRetryable).toBe(false);
    expect(rl.nextRetryDelay).toBe(2000);
    const auth = toApplicationFailure(classifyFailure({ kind: 'http', status: 401, headers: { 'retry-after': '2' }, endpoint: ep }));
    expect(auth.nonRetryable).toBe(true);
    expect(auth.nextRetryDelay).toBeUndefined();
  });
});

describe('openai provider mapping', () => {
  test('redact removes the key and sk-style secrets', () => {
    expect(redact('Incorrect API key provided: abcd1234secret.', 'abcd1234secret')).toBe('Incorrect API key provided: [redacted].');
    expect(redact('key sk-proj-AbC123xyz_**** is wrong')).toBe('key [redacted] is wrong');
  });
  test('safeEndpoint drops credentials and query strings', () => {
    expect(safeEndpoint('http://user:pw@127.0.0.1:8080/v1/?api-key=s3cret')).toBe('http://127.0.0.1:8080/v1');
  });
  test('parseToolArguments: objects, empty text, invalid JSON and non-objects', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolArguments('')).toEqual({});
    expect(parseToolArguments(undefined)).toEqual({});
    const bad = parseToolArguments('{"a":') as Record<string, { raw: string; error: string }>;
    expect(bad[INVALID_ARGUMENTS_KEY].raw).toBe('{"a":');
    expect(bad[INVALID_ARGUMENTS_KEY].error).toBeTruthy();
    expect((parseToolArguments('[1,2]') as Record<string, { error: string }>)[INVALID_ARGUMENTS_KEY].error).toMatch(/array/);
  });
  test('conversation and prefs map to a chat-completions request', () => {
    const { agent: a } = compileAgent({
      agent_id: 'chat',
      model: model('m', 'openai', { openai: { base_url: 'http://127.0.0.1:1/v1', model: 'gpt-x' }, supports_parallel_tool_calls: false }),
    });
    const req: ProviderRequest = {
      model: a.runtime.model,
      agent: a,
      instructions: 'be brief',
      conversation: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 't', arguments: { x: 1 } }, { id: 'c2', name: 't', arguments: parseToolArguments('nope') }] },
        { role: 'tool', content: '1', tool_call_id: 'c1', name: 't' },
        { role: 'tool', content: 'error: bad', tool_call_id: 'c2', name: 't', is_error: true },
      ],
      tools: [{ name: 't', description: 'a tool', parameters: { type: 'object' } }],
      prefs: { tool_choice: 'required', temperature: 0, stop_sequences: ['x'], max_output_tokens: 9 },
      turn: 1,
      input: 'q',
    };
    const body = buildRequest(req);
    expect(body).toMatchObject({ model: 'gpt-x', tool_choice: 'required', parallel_tool_calls: false, temperature: 0, stop: ['x'], max_tokens: 9 });
    expect(body.top_p).toBeUndefined();
    expect(body.messages).toEqual(toChatMessages('be brief', req.conversation));
    expect(body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 't', arguments: '{"x":1}' } },
          { id: 'c2', type: 'function', function: { name: 't', arguments: 'nope' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '1' },
      { role: 'tool', tool_call_id: 'c2', content: 'error: bad' },
    ]);
    expect(buildRequest({ ...req, tools: [] }).tools).toBeUndefined();
  });
});
