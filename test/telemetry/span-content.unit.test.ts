import { isRunSampled, modelInputsAttribute, toolArgsAttribute } from '../../src/telemetry/span-content';

describe('span content per observability.tracing', () => {
  const args = { account: 'A-1', card: { number: '4111111111111111' } };

  it('records no tool args by default (decision 248)', () => {
    expect(toolArgsAttribute(args, ['card.number'], {})).toBeUndefined();
  });

  it('redacted: replaces sensitive tool fields and keeps the others', () => {
    const attr = toolArgsAttribute(args, ['card.number'], { include_tool_args: 'redacted' });
    expect(attr).toBeDefined();
    expect(attr).not.toContain('4111111111111111');
    expect(JSON.parse(attr as string)).toEqual({ account: 'A-1', card: { number: '[redacted]' } });
  });

  it('records full args only when asked, none when none', () => {
    expect(JSON.parse(toolArgsAttribute(args, ['card.number'], { include_tool_args: 'full' }) as string)).toEqual(args);
    expect(toolArgsAttribute(args, ['card.number'], { include_tool_args: 'none' })).toBeUndefined();
  });

  it('records model inputs only when include_model_inputs is true', () => {
    const msgs = [{ role: 'user', content: 'my email is a@b.c' }];
    expect(modelInputsAttribute(msgs, {})).toBeUndefined();
    expect(modelInputsAttribute(msgs, { include_model_inputs: false })).toBeUndefined();
    expect(modelInputsAttribute(msgs, { include_model_inputs: true })).toBe(JSON.stringify(msgs));
  });

  it('samples a stable share of runs close to sampling_rate', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `run-${i}`);
    expect(ids.every((id) => isRunSampled(id, undefined))).toBe(true);
    expect(ids.some((id) => isRunSampled(id, 0))).toBe(false);
    const share = ids.filter((id) => isRunSampled(id, 0.25)).length / ids.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.3);
    expect(ids.map((id) => isRunSampled(id, 0.25))).toEqual(ids.map((id) => isRunSampled(id, 0.25)));
  });
});
