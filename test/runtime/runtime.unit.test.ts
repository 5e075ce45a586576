import { expandTemplate, renderUserPrompt, expandDeep } from '../../src/runtime/template';
import { selectScriptedReply, materializeReply } from '../../src/runtime/scripted';
import { searchKnowledge } from '../../src/runtime/knowledge-search';
import { countToolCall, countTurn, newCounters, toolCallBlocked, toolsExhausted, turnBlocked } from '../../src/runtime/limits';
import { ApprovalBook, approvalReason } from '../../src/runtime/approvals';
import { checkOutput, stripFence, correctionMessage } from '../../src/runtime/output';
import { modelPrefs } from '../../src/runtime/agent-view';
import { agentView, schemaError } from '../../src/activities/agent-loader';
import { compileAgent, scripted } from '../helpers/definitions';

describe('templates', () => {
  test('{{input}} and {{input.field}}', () => {
    expect(renderUserPrompt({ q: 'why', n: { k: 2 } }, 'Q: {{input.q}} / {{input.n.k}} / {{ input.missing }}')).toBe('Q: why / 2 / ');
    expect(renderUserPrompt('plain')).toBe('plain');
    expect(renderUserPrompt({ a: 1 })).toBe('{"a":1}');
    expect(expandTemplate('{{unknown}} stays', {})).toBe('{{unknown}} stays');
    expect(expandDeep({ x: ['{{a}}'] }, { a: 'b' })).toEqual({ x: ['b'] });
  });
});

describe('scripted replies', () => {
  const cfg = {
    rules: [
      { when: { last_message_contains: 'ERROR' }, reply: { content: 'saw error' } },
      { when: { input_contains: 'refund', turn: 0 }, reply: { content: 'refund path' } },
    ],
    turns: [{ content: 'a' }, { content: 'b' }],
  };
  const ctx = (turn: number, last = '', inputText = 'hello') => ({ turn, lastMessage: last, inputText, input: inputText });
  test('rules first, case-insensitive', () => {
    expect(selectScriptedReply(cfg, ctx(3, 'an error happened'))?.content).toBe('saw error');
    expect(selectScriptedReply(cfg, ctx(0, '', 'A Refund please'))?.content).toBe('refund path');
    expect(selectScriptedReply(cfg, ctx(1, '', 'A Refund please'))?.content).toBe('b');
  });
  test('turns, repeat_last (default) and cycle', () => {
    expect(selectScriptedReply(cfg, ctx(0))?.content).toBe('a');
    expect(selectScriptedReply(cfg, ctx(5))?.content).toBe('b');
    expect(selectScriptedReply({ ...cfg, after_last: 'cycle' }, ctx(4))?.content).toBe('a');
    expect(selectScriptedReply({}, ctx(0))).toBeUndefined();
  });
  test('materialize: call ids and template expansion', () => {
    const r = materializeReply(
      { tool_calls: [{ name: 't', arguments: { q: '{{input.x}}' } }, { id: 'fixed', name: 'u', arguments: {} }], content: { k: '{{last_tool_result}}' } },
      { turn: 2, lastMessage: '', inputText: '', input: { x: 'X' }, lastToolResult: '42' },
    );
    expect(r.tool_calls).toEqual([
      { id: 'call_2_0', name: 't', arguments: { q: 'X' } },
      { id: 'fixed', name: 'u', arguments: {} },
    ]);
    expect(r.content).toBe('{"k":"42"}');
  });
});

describe('limits', () => {
  test('turns, steps, tool calls and per-tool ceilings', () => {
    const c = newCounters();
    const l = { max_steps: 4, max_turns: 2, max_tool_calls: 2, per_tool: { a: 1 } };
    expect(turnBlocked(c, l)).toBeUndefined();
    countTurn(c);
    expect(toolCallBlocked(c, l, 'a')).toBeUndefined();
    countToolCall(c, 'a');
    expect(toolCallBlocked(c, l, 'a')).toMatch(/max_calls_per_run \(1\)/);
    expect(toolCallBlocked(c, l, 'b')).toBeUndefined();
    countToolCall(c, 'b');
    expect(toolsExhausted(c, l)).toBe(true);
    expect(toolCallBlocked(c, l, 'b')).toMatch(/max_tool_calls \(2\)/);
    countTurn(c);
    expect(turnBlocked(c, l)).toMatch(/max_turns \(2\)/);
    expect(turnBlocked(c, { ...l, max_turns: undefined })).toMatch(/max_steps \(4\)/);
  });
});

describe('approvals', () => {
  test('reasons, in priority order', () => {
    const p = { require_human_approval: false, require_user_confirmation_for: ['b'], tools: { a: true, b: false } };
    expect(approvalReason(p, 'a')).toMatch(/approval_required/);
    expect(approvalReason(p, 'b')).toMatch(/require_user_confirmation_for/);
    expect(approvalReason(p, 'c')).toBeUndefined();
    expect(approvalReason({ ...p, require_human_approval: true }, 'c')).toMatch(/require_human_approval/);
  });
  test('book: decide once, unknown ids explained', () => {
    const b = new ApprovalBook();
    expect(b.unknownMessage('x')).toMatch(/nothing is waiting/);
    b.add({ call_id: 'c1', tool: 't', arguments: {}, reason: 'r', requested_at: '' });
    expect(b.decide('zz', { kind: 'reject', reason: 'no' })).toBe(false);
    expect(b.unknownMessage('zz')).toMatch(/pending: c1/);
    expect(b.decide('c1', { kind: 'approve' })).toBe(true);
    expect(b.decide('c1', { kind: 'reject', reason: 'late' })).toBe(false);
    expect(b.decision('c1')).toEqual({ kind: 'approve' });
    b.remove('c1');
    expect(b.pending).toHaveLength(0);
  });
});

describe('output checks', () => {
  const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
  test('JSON, fences, errors', () => {
    expect(checkOutput(schema, '```json\n{"n": 1}\n```', schemaError)).toEqual({ ok: true, value: { n: 1 } });
    expect(checkOutput(schema, 'nope', schemaError)).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(checkOutput(schema, '{"n":"x"}', schemaError)).toMatchObject({ ok: false, error: expect.stringMatching(/\/n must be number/) });
    expect(checkOutput({ type: 'string' }, 'text', schemaError)).toEqual({ ok: true, value: 'text' });
    expect(checkOutput({}, 'text', schemaError)).toEqual({ ok: true, value: 'text' });
    expect(stripFence('x')).toBe('x');
    expect(correctionMessage('bad', schema)).toMatch(/not accepted: bad.*"required":\["n"\]/);
  });
});

describe('agent view and preferences', () => {
  test('instructions and sections never reach the workflow', () => {
    const { bundle, agent: a } = compileAgent({ agent_id: 'secretive', model: scripted({}), body: '# Purpose\nSecret sauce.\n\n# System behavior\nAnswer.\n\n# Rules\n- Be brief.\n' });
    expect(a.instructions).toContain('Secret sauce'); // the compiled agent holds them
    const v = agentView(bundle, a);
    expect(JSON.stringify(v)).not.toContain('Secret sauce');
    expect(v).not.toHaveProperty('sections');
  });
  test('preferences and the max_output_tokens constraint', () => {
    const { bundle, agent: a } = compileAgent({
      agent_id: 'tuned',
      model: scripted({}, 'scripted-test', { max_output_tokens: 500 }),
      front: {
        execution_policy: { id: 'agf.react', config: { temperature: 0.2, top_p: 0.9, stop_sequences: ['END'], tool_choice: 'required', max_output_tokens: 800 } },
        runtime: { max_output_tokens: 300 },
      },
    });
    const v = agentView(bundle, a);
    expect(modelPrefs(v, false)).toEqual({ temperature: 0.2, top_p: 0.9, stop_sequences: ['END'], tool_choice: 'required', max_output_tokens: 300 });
    expect(modelPrefs(v, true).tool_choice).toBe('none');
  });
});

test('scripted templates: {{tool_results.<tool>}} is the latest result of that tool', () => {
  const out = materializeReply(
    { content: { cost: '{{tool_results.calculator}}', saved: '{{tool_results.save-itinerary}}', missing: '{{tool_results.nope}}' } },
    { turn: 2, lastMessage: '', inputText: '', input: null, lastToolResult: 'ok', toolResults: { calculator: '660', 'save-itinerary': 'saved' } },
  );
  expect(JSON.parse(out.content!)).toEqual({ cost: '660', saved: 'saved', missing: '' });
});

test('search_knowledge: keyword hits over inline documents, title weighted, best first, max_chunks', () => {
  const kb = (kb_id: string, docs: { id: string; title?: string; text: string }[], max_chunks?: number) => ({
    kb_id, version: '1', status: 'active' as const, required: false, citations_required: false,
    retrieval: max_chunks ? { max_chunks } : undefined, backend: { type: 'inline', documents: docs },
  });
  const sources = [
    kb('product-docs', [
      { id: 'reset', title: 'Reset your password', text: 'Go to Settings > Security.' },
      { id: 'dup', title: 'Duplicate charges', text: 'If you were charged twice, the duplicate charge is refunded.' },
    ]),
    kb('other', [{ id: 'x', text: 'Refund policy for duplicate orders.' }], 1),
  ];
  const hits = searchKnowledge(sources, 'duplicate charge refund');
  expect(hits.map((h) => `${h.kb_id}/${h.id}`)).toEqual(['product-docs/dup', 'other/x']);
  expect(hits[0].score).toBeGreaterThan(hits[1].score);
  expect(searchKnowledge(sources, 'password', 1).map((h) => h.id)).toEqual(['reset']);
  expect(searchKnowledge(sources, 'the and how')).toEqual([]);
  expect(searchKnowledge([{ ...sources[0], status: 'disabled' as const }], 'password')).toEqual([]);
});

test("tool_choice 'required' forces the first tool call only, then the model may answer", () => {
  const { agent: compiled } = compileAgent({ agent_id: 'tool-first', model: scripted({ turns: [] }), front: { tools: { tool_choice: 'required', refs: [] } } });
  const a = { ...compiled, agent_tool_types: {} };
  expect(modelPrefs(a, false, 0).tool_choice).toBe('required');
  expect(modelPrefs(a, false, 1).tool_choice).toBe('auto');
  expect(modelPrefs(a, true, 0).tool_choice).toBe('none');
});

test('the scripted provider: {{last_tool_result}} is the latest tool result, {{tool_results.<tool>}} built from the whole conversation when named', async () => {
  const { scriptedProvider } = await import('../../src/activities/model');
  const conversation = [
    { role: 'user' as const, content: 'go' },
    { role: 'tool' as const, content: 'first', name: 'a', tool_call_id: '1' },
    { role: 'tool' as const, content: 'second', name: 'b', tool_call_id: '2' },
    { role: 'assistant' as const, content: 'thinking' },
  ];
  const ask = (content: string) =>
    scriptedProvider({
      model: { model_id: 'm', version: '1', status: 'active', provider: 'scripted', scripted: { turns: [{ content }] } },
      conversation,
      prefs: {},
      turn: 0,
      input: 'go',
    } as unknown as Parameters<typeof scriptedProvider>[0]);
  expect((await ask('{{last_tool_result}}')).content).toBe('second');
  expect((await ask('{{tool_results.a}}/{{tool_results.b}}')).content).toBe('first/second');
});
