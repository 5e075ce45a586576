/** HandoffContext sources rendered from workspace data (src/strategies/handoff.ts) and what the runtime must gather (evidence.ts). */
import { handoffFiles, parseHandoffSource, renderHandoffContext, SESSION_CONTEXT_FILE } from '../../src/strategies/handoff';
import { artifactPathsOf, usesEvidence } from '../../src/strategies/evidence';
import { BRIEF } from './turns';

const changes = [1, 2, 3].map((i) => ({ path: `src/f${i}.go`, mode: 'overwrite', by: `turn-${i}-Developer`, at: `2026-01-01T00:00:0${i}Z` }));

describe('HandoffContext', () => {
  test('parses every seed source; changes_recent without N takes the default', () => {
    expect(parseHandoffSource('session_context')).toEqual({ kind: 'session_context' });
    expect(parseHandoffSource('changes_recent')).toEqual({ kind: 'changes_recent', n: 10 });
    expect(parseHandoffSource('changes_recent:2')).toEqual({ kind: 'changes_recent', n: 2 });
    expect(parseHandoffSource('brief_field:test_targets')).toEqual({ kind: 'brief_field', field: 'test_targets' });
    expect(parseHandoffSource('file:notes/plan.md')).toEqual({ kind: 'file', path: 'notes/plan.md' });
    expect(parseHandoffSource('own_history')).toBeUndefined();
  });

  test('names the files to read', () => {
    expect(handoffFiles([{ Source: 'session_context' }, { Source: 'brief_field:goal' }, { Source: 'file:a.txt' }, { Source: 'changes_recent:3' }]).sort())
      .toEqual(['a.txt', 'brief.json', SESSION_CONTEXT_FILE].sort());
  });

  test('renders each source under its Label, the last N changes, a brief field, capped at MaxChars', () => {
    const text = renderHandoffContext(
      [{ Source: 'changes_recent:2', Label: 'Recent changes' }, { Source: 'brief_field:files_to_change' }, { Source: 'file:log.txt', MaxChars: 5 }, { Source: 'session_context' }],
      { files: { 'brief.json': BRIEF, 'log.txt': '0123456789', [SESSION_CONTEXT_FILE]: null }, changes },
      'Tester',
    );
    expect(text).toContain('[Handoff context for Tester]');
    expect(text).toContain('## Recent changes\n- src/f2.go (overwrite by turn-2-Developer)\n- src/f3.go (overwrite by turn-3-Developer)');
    expect(text).not.toContain('src/f1.go');
    expect(text).toContain('## brief_field:files_to_change\n[\n  "main.go",\n  "main_test.go"\n]');
    expect(text).toContain('## file:log.txt\n01234\n[… 5 more characters]');
    expect(text).toContain(`(no session context: ${SESSION_CONTEXT_FILE} has not been written)`);
  });

  test('says what is missing instead of injecting nothing', () => {
    const text = renderHandoffContext([{ Source: 'brief_field:goal' }, { Source: 'file:x.md' }, { Source: 'changes_recent' }], { files: { 'brief.json': null, 'x.md': null }, changes: [] }, 'Dev');
    expect(text).toContain('(brief.json does not exist)');
    expect(text).toContain('(x.md does not exist)');
    expect(text).toContain('(no files written yet)');
  });
});

describe('evidence to gather', () => {
  test('only strategies with validators or contracts gather per-turn evidence', () => {
    expect(usesEvidence({ Selection: { Type: 'keyword', Routes: [{ Keyword: 'GO', Agent: 'A' }] } })).toBe(false);
    expect(usesEvidence({ Selection: { Type: 'keyword', Routes: [{ Keyword: 'GO', Agent: 'A', Validator: 'RequireBrief' }] } })).toBe(true);
    expect(usesEvidence({ Selection: { Type: 'graph', Graph: { Nodes: [{ Id: 'a', Agent: 'A', Terminal: true, Validators: ['RequireShellPass'] }], Edges: [] } } })).toBe(true);
    expect(usesEvidence({ Selection: { Type: 'statemachine' }, Contracts: [{ Name: 'C', Requires: [] }] })).toBe(true);
  });

  test('the artifact files: the built-in validators\' and every contract Source', () => {
    expect(artifactPathsOf([
      { Name: 'Impl', Requires: [{ FilesWritten: { Source: '.fuseraft/artifacts/brief.json', Field: 'files_to_change' } }, { CommandSucceeded: { PatternField: 'verify_command' } }] },
    ]).sort()).toEqual(['.fuseraft/artifacts/brief.json', 'brief.json', 'test-report.json']);
  });
});
