/** The pure artifact plan: which artifacts a run writes, their content, and each class's expiry. */
import { expiresAt, planArtifacts, retentionDaysFromEnv, writesArtifacts } from '../../src/runtime/artifacts';
import type { Message } from '../../src/runtime/messages';
import { redactJson } from '../../src/governance/pii';

const on = { enabled: true, save_input: true, save_output: true, save_intermediate: true, retention_class: 'standard' as const };
const conv: Message[] = [
  { role: 'user', content: 'hello [EMAIL]' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }, { id: 'c2', name: 'fail', arguments: {} }] },
  { role: 'tool', tool_call_id: 'c1', name: 'echo', content: 'x' },
  { role: 'tool', tool_call_id: 'c2', name: 'fail', content: 'boom', is_error: true },
  { role: 'assistant', content: '{"answer":"ok"}' },
];

test('every declared kind, in a fixed order, from the stored conversation', () => {
  const p = planArtifacts(on, conv, { answer: 'ok' });
  expect(p.map((a) => [a.name, a.kind])).toEqual([['input.json', 'input'], ['output.json', 'output'], ['intermediate.json', 'intermediate']]);
  expect(JSON.parse(p[0].content)).toEqual({ message: 'hello [EMAIL]' });
  expect(JSON.parse(p[1].content)).toEqual({ output: { answer: 'ok' } });
  expect(JSON.parse(p[2].content)).toEqual({
    tool_calls: [
      { id: 'c1', tool: 'echo', arguments: { text: 'x' }, result: 'x', is_error: false },
      { id: 'c2', tool: 'fail', arguments: {}, result: 'boom', is_error: true },
    ],
  });
});

test('nothing when disabled, ephemeral or no kind is saved', () => {
  expect(planArtifacts({ ...on, enabled: false }, conv, 1)).toEqual([]);
  expect(planArtifacts({ ...on, retention_class: 'ephemeral' }, conv, 1)).toEqual([]);
  expect(writesArtifacts({ ...on, save_input: false, save_output: false, save_intermediate: false })).toBe(false);
  expect(writesArtifacts(undefined)).toBe(false);
  expect(planArtifacts({ ...on, save_input: false, save_intermediate: false }, conv, 1).map((a) => a.name)).toEqual(['output.json']);
});

test('expiry per class, days from the tenant setting, a bad setting refused', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const days = retentionDaysFromEnv({});
  expect(days).toEqual({ standard: 90, extended: 2555 });
  expect(expiresAt('standard', now, days).toISOString()).toBe('2026-04-01T00:00:00.000Z');
  expect(expiresAt('restricted', now, days).toISOString()).toBe('2026-04-01T00:00:00.000Z');
  expect(expiresAt('extended', now, { standard: 30, extended: 365 }).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  expect(retentionDaysFromEnv({ LOOM_ARTIFACT_STANDARD_DAYS: '30' }).standard).toBe(30);
  expect(() => retentionDaysFromEnv({ LOOM_ARTIFACT_EXTENDED_DAYS: '7y' })).toThrow("LOOM_ARTIFACT_EXTENDED_DAYS must be a whole number of days (1 or more), got '7y'");
});

test('redactPii: every artifact through the audit log engine, a tool result and its JSON text included', () => {
  const pii: Message[] = [
    { role: 'user', content: 'write to maria.lopez@example.com' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'lookup', arguments: { who: 'maria.lopez@example.com' } }] },
    { role: 'tool', tool_call_id: 'c1', name: 'lookup', content: '{"phone":"+1 415 555 0134","card":"4111 1111 1111 1111"}' },
  ];
  const p = planArtifacts(on, pii, { answer: 'mail maria.lopez@example.com' }, { redact: (v) => redactJson(v).value });
  expect(p.map((a) => JSON.parse(a.content))).toEqual([
    { message: 'write to [EMAIL]' },
    { output: { answer: 'mail [EMAIL]' } },
    { tool_calls: [{ id: 'c1', tool: 'lookup', arguments: { who: '[EMAIL]' }, result: '{"phone":"[PHONE]","card":"[CARD_NUMBER]"}', is_error: false }] },
  ]);
  // Off: as stored.
  expect(JSON.parse(planArtifacts(on, pii, null)[2].content).tool_calls[0].result).toContain('4111 1111 1111 1111');
});
