import { DEFAULT_SELECTION_PROMPT, fallbackAgent, parseSelection, renderHistory, selectionCorrection, selectionPrompt, SELECTION_HISTORY_TURNS } from '../../src/strategies/llm-selection';

const NAMES = ['Planner', 'Developer', 'CodeReviewer'];

describe('llm selection prompt', () => {
  test('fills {{$agents}} with names and descriptions and {{$history}} with the task and turns', () => {
    const p = selectionPrompt('Agents:\n{{$agents}}\nHistory:\n{{$history}}\nWho?', [{ name: 'Planner', description: 'plans' }, { name: 'Developer' }], 'build it', [{ agent: 'Planner', text: 'plan: A' }]);
    expect(p).toBe('Agents:\n- Planner: plans\n- Developer\nHistory:\n[user]: build it\n[Planner]: plan: A\nWho?');
  });

  test('the built-in prompt when Prompt is omitted', () => {
    const p = selectionPrompt(undefined, [{ name: 'A' }], 't', []);
    expect(DEFAULT_SELECTION_PROMPT).toContain('{{$agents}}');
    expect(p).toContain('- A');
    expect(p).toContain('[user]: t');
    expect(p).not.toContain('{{$');
  });

  test('history keeps the recent turns and says how many were omitted', () => {
    const turns = Array.from({ length: SELECTION_HISTORY_TURNS + 3 }, (_, i) => ({ agent: 'A', text: `t${i}` }));
    const h = renderHistory('task', turns);
    expect(h).toContain('(3 earlier turn(s) omitted)');
    expect(h).not.toContain('[A]: t2\n');
    expect(h.endsWith(`[A]: t${SELECTION_HISTORY_TURNS + 2}`)).toBe(true);
  });
});

describe('llm selection reply parsing', () => {
  test.each([
    ['Developer', 'Developer'],
    ['  developer\n', 'Developer'],
    ['**CodeReviewer**', 'CodeReviewer'],
    ['"Planner".', 'Planner'],
    ['`planner`', 'Planner'],
  ])('%j names %s', (reply, agent) => {
    expect(parseSelection(reply, NAMES)).toEqual({ ok: true, agent });
  });

  test.each([
    ['', /empty/],
    ['Tester', /"Tester" is not one of the agents \(Planner, Developer, CodeReviewer\)/],
    ['I think Developer should go next', /is not one of the agents/],
    ['Planner, Developer', /is not one of the agents/],
  ])('%j is refused with the reason', (reply, reason) => {
    const r = parseSelection(reply, NAMES);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });

  test('the correction names the reason and every agent', () => {
    expect(selectionCorrection('"Tester" is not one of the agents', NAMES)).toBe('Your previous reply could not be used: "Tester" is not one of the agents. Reply with exactly one of these agent names and nothing else: Planner, Developer, CodeReviewer.');
  });

  test('fallback: the agent after the last speaker in Agents order, the first on the first turn', () => {
    expect(fallbackAgent(NAMES, undefined)).toBe('Planner');
    expect(fallbackAgent(NAMES, 'Planner')).toBe('Developer');
    expect(fallbackAgent(NAMES, 'CodeReviewer')).toBe('Planner');
  });
});
