import { afterLedger, ledgerPrompt, magenticOf, parseLedger, parseOrientation, parseSpeaker, participantInput, speakerPrompt } from '../../src/strategies/magentic';

const O = { task_summary: 's', facts: 'f', plan: 'P', next_step: 'n', completion_check: 'c' };

describe('magentic manager replies', () => {
  test('the seed defaults', () => {
    expect(magenticOf({ Model: 'm' })).toEqual({ Model: 'm', MaxRoundCount: 20, MaxStallCount: 3, MaxResetCount: 2, EnablePlanReview: false });
  });

  test('orientation and ledger: JSON with every field of the right type, raw or fenced', () => {
    expect(parseOrientation(JSON.stringify(O))).toEqual({ ok: true, value: O });
    expect(parseLedger('```json\n{"task_complete": true, "stalling": false, "facts": "x", "reason": "r"}\n```')).toEqual({ ok: true, value: { task_complete: true, stalling: false, facts: 'x', reason: 'r' } });
    expect(parseLedger('{"task_complete": "yes", "stalling": false, "facts": "x", "reason": "r"}')).toEqual({ ok: false, reason: 'field "task_complete" must be a boolean (it is "yes")' });
    expect(parseLedger('done')).toEqual({ ok: false, reason: 'the reply carries no JSON object' });
    expect(parseOrientation('{"plan": "p"}')).toEqual({ ok: false, reason: 'field "task_summary" must be a string (it is missing)' });
  });

  test('speaker: a participant name (case-insensitive) and an instruction', () => {
    expect(parseSpeaker('{"next_speaker": "developer", "instruction": "go"}', ['Developer'])).toEqual({ ok: true, value: { next_speaker: 'Developer', instruction: 'go' } });
    expect(parseSpeaker('{"next_speaker": "Tester", "instruction": "go"}', ['Developer'])).toEqual({ ok: false, reason: 'next_speaker "Tester" is not one of the participants (Developer)' });
  });

  test('prompts name the call, the plan and the placeholders the activity fills', () => {
    expect(ledgerPrompt(O)).toMatch(/^magentic_ledger_update[\s\S]*# Plan\nP[\s\S]*\{\{\$agents\}\}[\s\S]*\{\{\$history\}\}/);
    expect(speakerPrompt(O, ['A', 'B'])).toContain('"next_speaker": one of "A", "B"');
    expect(participantInput('t', [], 'do it')).toBe('# Task\nt\n\n# Instruction from the manager\ndo it');
  });
});

describe('stall detection', () => {
  test('MaxStallCount consecutive stalls replan; progress resets the count; past MaxResetCount it stops', () => {
    let s = { stalls: 0, resets: 0 };
    let step = afterLedger(s, true, 2, 1);
    expect(step).toEqual({ kind: 'continue', state: { stalls: 1, resets: 0 } });
    expect(afterLedger(step.state, false, 2, 1)).toEqual({ kind: 'continue', state: { stalls: 0, resets: 0 } });
    step = afterLedger(step.state, true, 2, 1);
    expect(step).toEqual({ kind: 'replan', state: { stalls: 0, resets: 1 } });
    s = step.state;
    step = afterLedger(afterLedger(s, true, 2, 1).state, true, 2, 1);
    expect(step.kind).toBe('stop');
    expect(step.kind === 'stop' && step.message).toBe('magentic stalled: 2 consecutive round(s) without progress after 1 replan(s) (MaxStallCount 2, MaxResetCount 1)');
  });
});
