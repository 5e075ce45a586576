/** fuseraft's agent Context spec, pure: own_history[:N], the orchestrator's latest messages, the
 * member input it makes, and what the validator accepts in an `Agents` entry. */
import { contextPlan, contextSpecOf, contextSpecText, contextView, parseOwnHistory } from '../../src/strategies/context-spec';
import type { TranscriptEntry } from '../../src/strategies/transcript';
import { validateStrategyConfig } from '../../src/strategies/validate';

const a = (agent: string, text: string): TranscriptEntry => ({ agent, text, kind: 'agent' });
const o = (text: string): TranscriptEntry => ({ agent: 'orchestrator', text, kind: 'context' });
// Oldest first, as the conversation went; the functions take it newest first.
const convo = [a('Planner', 'plan v1'), a('Writer', 'draft 1'), a('Reviewer', 'too long'), a('Writer', 'draft 2'), a('Reviewer', 'still long'), o('No signal detected. Emit DONE.')];
const newestFirst = [...convo].reverse();

test('own_history and own_history:N parse; other sources are not own history', () => {
  expect(parseOwnHistory('own_history')).toEqual({});
  expect(parseOwnHistory('own_history:2')).toEqual({ n: 2 });
  expect(parseOwnHistory('own_history:0')).toBeUndefined();
  expect(parseOwnHistory('session_context')).toBeUndefined();
  expect(contextPlan([{ Source: 'own_history:1' }, { Source: 'file:draft.md', Label: 'Draft' }])).toEqual({ sources: [{ Source: 'file:draft.md', Label: 'Draft' }], own: { n: 1 } });
});

test('the view: only the agent\'s own turns (the last N), and what the orchestrator said since the last agent turn', () => {
  expect(contextView(newestFirst, 'Writer', {})).toEqual({ own: [a('Writer', 'draft 1'), a('Writer', 'draft 2')], ownOmitted: 0, orchestrator: [o('No signal detected. Emit DONE.')] });
  expect(contextView(newestFirst, 'Writer', { n: 1 })).toMatchObject({ own: [a('Writer', 'draft 2')], ownOmitted: 1 });
  expect(contextView(newestFirst, 'Writer', undefined)).toMatchObject({ own: [], ownOmitted: 0 });
});

test('the member input holds no other agent\'s words', () => {
  const text = contextSpecText('write a poem', 'Writer', '[Context sources for Writer]\n## brief\nroses', contextView(newestFirst, 'Writer', {}), true);
  expect(text).toBe([
    '# Task\nwrite a poem',
    '# Your context sources\n[Context sources for Writer]\n## brief\nroses',
    '# Your earlier turns\n\n[Writer]\ndraft 1\n\n[Writer]\ndraft 2',
    '# From the orchestrator\n\nNo signal detected. Emit DONE.',
  ].join('\n\n'));
  expect(text).not.toMatch(/too long|still long|plan v1/);
  expect(contextSpecText('t', 'Editor', undefined, contextView(newestFirst, 'Editor', {}), true)).toContain('# Your earlier turns\n(none yet)');
});

test('contextSpecOf finds the spec of a named entry only', () => {
  const agents = ['Planner', { Name: 'Writer', Context: [{ Source: 'own_history' }] }];
  expect(contextSpecOf(agents, 'Writer')).toEqual([{ Source: 'own_history' }]);
  expect(contextSpecOf(agents, 'Planner')).toBeUndefined();
  expect(contextSpecOf(undefined, 'Writer')).toBeUndefined();
});

describe('validation of Agents entries', () => {
  const cfg = (agents: unknown[]) => ({ Agents: agents, Selection: { Type: 'roundrobin' }, Termination: { Type: 'maxiterations', MaxIterations: 4 } });
  test('a Context spec with own_history and HandoffContext sources is valid', () => {
    expect(validateStrategyConfig(cfg(['Planner', { Name: 'Writer', Context: [{ Source: 'own_history:3' }, { Source: 'brief_field:goal', MaxChars: 500 }] }]), ['Planner', 'Writer'])).toEqual([]);
  });
  test('bad sources, a second own_history, other AgentConfig fields and an empty Context are errors', () => {
    const p = validateStrategyConfig(cfg([{ Name: 'Writer', Model: 'gpt-4o', Context: [{ Source: 'own_history:x' }, { Source: 'own_history' }, { Source: 'history' }] }, { Name: 'Planner', Context: [] }]), ['Planner', 'Writer']);
    expect(p.map((x) => [x.path.join('.'), x.rule])).toEqual([
      ['Agents.0.Model', 'field'],
      ['Agents.0.Context.0.Source', 'structure'],
      ['Agents.0.Context.1.Source', 'structure'],
      ['Agents.0.Context.2.Source', 'unknown-name'],
      ['Agents.1.Context', 'structure'],
    ]);
    expect(p[0].message).toMatch(/`Model` is defined by the agent file/);
    expect(p[3].message).toMatch(/unknown Context source `history`; use one of own_history, own_history:N, session_context/);
  });
});
