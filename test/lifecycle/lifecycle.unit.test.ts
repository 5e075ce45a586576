/** src/governance/lifecycle.ts and src/runtime/output-render.ts (issue 11 point 3). */
import { lifecycleRefusal, lifecycleWarning, memberRefusal, memberWarning } from '../../src/governance/lifecycle';
import { renderOutput } from '../../src/runtime/output-render';

describe('lifecycle', () => {
  const a = (status: string) => ({ agent_id: 'a', version: '2.0.0', status });
  test('active and deprecated run; draft only when allowed; disabled never', () => {
    expect(lifecycleRefusal(a('active'))).toBeUndefined();
    expect(lifecycleRefusal(a('deprecated'))).toBeUndefined();
    expect(lifecycleRefusal(a('draft'))).toMatch(/status: draft.*--allow-draft/);
    expect(lifecycleRefusal(a('draft'), { allow_draft: true })).toBeUndefined();
    expect(lifecycleRefusal(a('disabled'), { allow_draft: true })).toMatch(/disabled and cannot be run: set status: active/);
  });
  test('deprecated and allowed drafts carry a warning; active none', () => {
    expect(lifecycleWarning(a('deprecated'))).toMatch(/a v2\.0\.0 is deprecated/);
    expect(lifecycleWarning(a('draft'))).toMatch(/draft/);
    expect(lifecycleWarning(a('active'))).toBeUndefined();
  });
  test('members: only disabled is refused, only deprecated warns (a draft member runs under its allowed root)', () => {
    expect(memberRefusal(a('disabled'))).toMatch(/^member a v2\.0\.0 has status: disabled and cannot be run/);
    for (const s of ['active', 'deprecated', 'draft']) expect(memberRefusal(a(s))).toBeUndefined();
    expect(memberWarning(a('deprecated'))).toMatch(/a v2\.0\.0 is deprecated/);
    for (const s of ['active', 'draft', 'disabled']) expect(memberWarning(a(s))).toBeUndefined();
  });
});

describe('output.render', () => {
  const out = { answer: 'Reset it in Settings.', escalated: false, suggested_articles: ['kb-1', 'kb-2'] };
  test('no render or format json: indented JSON, as before', () => {
    expect(renderOutput(out, undefined)).toBe(JSON.stringify(out, null, 2));
    expect(renderOutput(out, { format: 'json' })).toBe(JSON.stringify(out, null, 2));
  });
  test('markdown: fields in bold, lists as bullets; a string output verbatim', () => {
    expect(renderOutput(out, { format: 'markdown' })).toBe('**answer**: Reset it in Settings.\n**escalated**: false\n**suggested_articles**:\n- kb-1\n- kb-2');
    expect(renderOutput('# Title\ntext', { format: 'markdown' })).toBe('# Title\ntext');
  });
  test('text: field: value lines', () => {
    expect(renderOutput(out, { format: 'text' })).toBe('answer: Reset it in Settings.\nescalated: false\nsuggested_articles:\n  kb-1\n  kb-2');
  });
});
