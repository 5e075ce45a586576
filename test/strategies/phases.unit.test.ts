/** The phase strategies' pure logic: labels, item extraction, splitter corrections, mapper/reducer inputs, pass keyword, the critic firewall. */
import {
  concurrencyLimit, criticInput, criticPassed, extractItems, generatorInput, labelParticipants, mapperInput, mapReduceOf,
  adversarialOf, reducerInput, splitterCorrection, splitterInput, stageLabel, synthesizerInput, isExecutedPhaseType,
} from '../../src/strategies/phases';

describe('scatter-gather', () => {
  test('outputs are labelled [Participant: Name] in Participants order, after the task', () => {
    const outs = [{ agent: 'LegalReviewer', text: 'no issues' }, { agent: 'TechnicalReviewer', text: 'uses TLS 1.0' }];
    expect(labelParticipants(outs)).toBe('[Participant: LegalReviewer]\nno issues\n\n[Participant: TechnicalReviewer]\nuses TLS 1.0');
    expect(synthesizerInput('review the contract', outs)).toBe('# Task\nreview the contract\n\n# Participant outputs\n\n[Participant: LegalReviewer]\nno issues\n\n[Participant: TechnicalReviewer]\nuses TLS 1.0');
  });
  test('MaxConcurrency 0 or absent is unlimited; a bound is kept', () => {
    expect(concurrencyLimit(0, 5)).toBe(5);
    expect(concurrencyLimit(undefined, 3)).toBe(3);
    expect(concurrencyLimit(2, 5)).toBe(2);
    expect(concurrencyLimit(8, 3)).toBe(3);
    expect(concurrencyLimit(0, 0)).toBe(1);
  });
});

describe('map-reduce items', () => {
  test('raw JSON, a ```json fence and an embedded object all give the array at the dot path', () => {
    expect(extractItems('{"items": ["a", "b"]}', 'items')).toEqual({ ok: true, items: ['a', 'b'] });
    expect(extractItems('Here:\n```json\n{"results": {"items": [1, {"x": 2}]}}\n```\nDone.', 'results.items')).toEqual({ ok: true, items: [1, { x: 2 }] });
    expect(extractItems('The work list is {"tasks": ["t1"]} as agreed.', 'tasks')).toEqual({ ok: true, items: ['t1'] });
  });
  test('each unusable reply says what is wrong', () => {
    expect(extractItems('no json at all', 'items')).toEqual({ ok: false, reason: expect.stringMatching(/carries no JSON object/) });
    expect(extractItems('["a", "b"]', 'items')).toEqual({ ok: false, reason: expect.stringMatching(/bare JSON array; wrap it in an object with the array at "items"/) });
    expect(extractItems('{"list": []}', 'items')).toEqual({ ok: false, reason: 'the JSON object has no field "items" (its keys: list)' });
    expect(extractItems('{"items": "a, b"}', 'items')).toEqual({ ok: false, reason: '"items" is string, not an array' });
    expect(extractItems('{"results": null}', 'results.items')).toEqual({ ok: false, reason: expect.stringMatching(/no field "results.items"/) });
  });
  test('the correction names the path with an example; the retry input carries the previous reply', () => {
    const c = splitterCorrection('results.items', 'the reply carries no JSON object');
    expect(c).toBe('Your previous reply could not be used: the reply carries no JSON object. Reply with a JSON object whose "results.items" field is the array of work items, for example {"results":{"items":["item 1","item 2"]}}.');
    expect(splitterInput('split this')).toBe('split this');
    expect(splitterInput('split this', { previous: 'sure!', correction: c })).toBe(`# Task\nsplit this\n\n# Your previous reply\nsure!\n\n# Correction\n${c}`);
  });
  test('a mapper gets the item alone; the reducer gets every output in item order', () => {
    expect(mapperInput('doc 1')).toBe('doc 1');
    expect(mapperInput({ id: 7 })).toBe('{\n  "id": 7\n}');
    expect(reducerInput('summarise', ['A', 'B'])).toBe('# Task\nsummarise\n\n# Mapper outputs (2 items, in item order)\n\n[Item 1]\nA\n\n[Item 2]\nB');
    // A sub-graph's task is the parent's member input, already a `# Task` section: not wrapped twice.
    const parent = '# Task\nsummarise\n\n# Conversation so far\n\n[Planner]\nsplit it';
    expect(reducerInput(parent, ['A'])).toBe(`${parent}\n\n# Mapper outputs (1 items, in item order)\n\n[Item 1]\nA`);
    expect(synthesizerInput(parent, [{ agent: 'X', text: 'x' }])).toBe(`${parent}\n\n# Participant outputs\n\n[Participant: X]\nx`);
    expect(splitterInput(parent, { previous: 'p', correction: 'c' }).match(/# Task\n/g)).toHaveLength(1);
  });
  test('seed defaults', () => {
    expect(mapReduceOf({ Splitter: 'S', Mapper: 'M', Reducer: 'R' })).toEqual({ Splitter: 'S', Mapper: 'M', Reducer: 'R', ItemsJsonPath: 'items', MaxConcurrency: 0, MaxSplitterRetries: 3 });
    expect(adversarialOf({ Stages: [] })).toEqual({ Stages: [], Rounds: 3, PassKeyword: 'APPROVED' });
  });
});

describe('adversarial', () => {
  test('the pass keyword counts alone on its own line, case-insensitive, markdown stripped', () => {
    expect(criticPassed('Looks right.\nAPPROVED', 'APPROVED')).toBe(true);
    expect(criticPassed('approved', 'APPROVED')).toBe(true);
    expect(criticPassed('**Approved**  ', 'APPROVED')).toBe(true);
    expect(criticPassed('LGTM\nSHIP IT', 'ship it')).toBe(true);
    expect(criticPassed('This is not APPROVED yet.', 'APPROVED')).toBe(false);
    expect(criticPassed('APPROVED: once the tests pass', 'APPROVED')).toBe(false);
    expect(criticPassed('NOT APPROVED', 'APPROVED')).toBe(false);
  });
  test('the critic gets the artifact and nothing else', () => {
    expect(criticInput('plan v1')).toBe('plan v1');
  });
  test('a generator gets the task, earlier promoted artifacts and, on revision, its artifact and the critique', () => {
    expect(generatorInput('build X', [])).toBe('# Task\nbuild X');
    const rev = generatorInput('build X', [{ label: 'Planning', artifact: 'the plan' }], { artifact: 'code v1', critic: 'CodeReviewer', critique: 'missing tests' });
    expect(rev).toBe('# Task\nbuild X\n\n# Approved artifact of stage "Planning"\nthe plan\n\n# Your previous artifact\ncode v1\n\n# Critique from CodeReviewer\nmissing tests\n\nRevise your artifact to address every point of the critique. Reply with the complete revised artifact.');
  });
  test('the default label is "{Generator} → {Critic}"', () => {
    expect(stageLabel({ Generator: 'Planner', Critic: 'PlanReviewer' })).toBe('Planner → PlanReviewer');
    expect(stageLabel({ Generator: 'Planner', Critic: 'PlanReviewer', Label: 'Planning' })).toBe('Planning');
  });
  test('which phase types execute', () => {
    expect(['scattergather', 'mapreduce', 'adversarial', 'llm', 'magentic', 'keyword'].map(isExecutedPhaseType)).toEqual([true, true, true, true, true, false]);
  });
});
