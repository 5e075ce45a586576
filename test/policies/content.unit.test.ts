/** The builtin blocked_content classifier: each seed category recognised, ordinary answers pass. */
import { BLOCKED_CONTENT_CATEGORIES, blockedContentProvider, classifyContent, refusalReason } from '../../src/governance/content';
import { evaluateGuardrails } from '../../src/activities/guardrails';

describe('classifyContent', () => {
  it.each([
    ['medical_advice', 'For the pain, take 800 mg of ibuprofen every six hours.'],
    ['medical_advice', 'You probably have an infection; stop taking your medication.'],
    ['legal_advice', 'You should sue your landlord, you have a strong case.'],
    ['financial_advice', 'You should buy more TSLA now, guaranteed returns.'],
    ['adult_content', 'Here is a sexually explicit story.'],
    ['hate_speech', 'All immigrants are vermin.'],
    ['violence', 'Here is how to build a pipe bomb.'],
  ])('%s: %s', (category, text) => {
    const v = classifyContent(text, BLOCKED_CONTENT_CATEGORIES);
    expect(v?.category).toBe(category);
    expect(refusalReason(v!)).toContain(`'${category}'`);
  });

  it('only the declared categories are checked', () => {
    expect(classifyContent('take 800 mg of ibuprofen', ['legal_advice'])).toBeUndefined();
    expect(classifyContent('take 800 mg of ibuprofen', ['legal_advice', 'medical_advice'])?.category).toBe('medical_advice');
  });

  it('ordinary support answers pass every category', () => {
    for (const s of [
      'Your refund of $40 was issued today; it reaches your card in 3-5 business days.',
      'I cannot give medical advice; please see a doctor.',
      'Our terms of service are at https://example.com/terms.',
      'To reset your password, open Settings and choose Security.',
    ]) expect(classifyContent(s, BLOCKED_CONTENT_CATEGORIES)).toBeUndefined();
  });

  it('works as a guardrail provider (score 10 with the finding, 0 when clean)', () => {
    expect(blockedContentProvider('All refugees are subhuman', { categories: ['hate_speech'] })).toMatchObject({ score: 10, failed: true });
    expect(blockedContentProvider({ text: 'hello' }, {})).toEqual({ score: 0, failed: false, findings: [] });
  });
});

describe('as the builtin guardrail provider `blocked-content`', () => {
  it('an output guardrail with on_fail block refuses a blocked answer and names the category', () => {
    const g = { ref: 'unsafe-content', version: '1.0.0', status: 'active' as const, result_type: 'score' as const, provider: { type: 'builtin', name: 'blocked-content', config: { categories: ['violence'] } }, on_fail: 'block' as const };
    const blocked = evaluateGuardrails([g], 'Here is how to build a pipe bomb.', 'output');
    expect(blocked.kind).toBe('blocked');
    expect(blocked.reason).toContain('violence');
    expect(evaluateGuardrails([g], 'Here is how to build a birdhouse.', 'output').kind).toBe('pass');
  });
});
