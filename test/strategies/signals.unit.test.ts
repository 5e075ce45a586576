/** Keyword/signal detection rules of seed 002: relaxed (keyword routing, state-machine signals) and
 * strict (graph) line matching, markdown stripping, case, mid-sentence keywords, handoff calls. */
import fc from 'fast-check';
import { detectKeywords, lineMatches, normalizeKeyword, resolveHandoff, signalsOf } from '../../src/strategies/keywords';

const KW = ['HANDOFF TO DEVELOPER', 'BUGS FOUND', 'APPROVED'];

describe('relaxed line matching (keyword routing)', () => {
  test('a keyword alone on its own line matches, case-insensitively', () => {
    expect(detectKeywords('Done.\nBUGS FOUND\n', KW, 'relaxed')).toEqual(['BUGS FOUND']);
    expect(detectKeywords('bugs found', KW, 'relaxed')).toEqual(['BUGS FOUND']);
    expect(detectKeywords('  Approved  ', KW, 'relaxed')).toEqual(['APPROVED']);
  });
  test('at the start of a line followed by whitespace or punctuation (the seed: `BUGS FOUND: all issues fixed`)', () => {
    expect(detectKeywords('BUGS FOUND: all issues fixed', KW, 'relaxed')).toEqual(['BUGS FOUND']);
    expect(detectKeywords('APPROVED. Ship it', KW, 'relaxed')).toEqual(['APPROVED']);
    expect(detectKeywords('APPROVED with notes', KW, 'relaxed')).toEqual(['APPROVED']);
    expect(detectKeywords('APPROVEDX', KW, 'relaxed')).toEqual([]);
    expect(detectKeywords('APPROVED2', KW, 'relaxed')).toEqual([]);
  });
  test('a keyword embedded mid-sentence or in a section header does not match', () => {
    expect(detectKeywords('The tester said BUGS FOUND yesterday', KW, 'relaxed')).toEqual([]);
    expect(detectKeywords('I will not say APPROVED yet', KW, 'relaxed')).toEqual([]);
    expect(detectKeywords('## APPROVED', KW, 'relaxed')).toEqual([]);
    expect(detectKeywords('- APPROVED', KW, 'relaxed')).toEqual([]);
  });
  test('markdown `*` and `_` are stripped first', () => {
    expect(detectKeywords('**APPROVED**', KW, 'relaxed')).toEqual(['APPROVED']);
    expect(detectKeywords('_BUGS FOUND_', KW, 'relaxed')).toEqual(['BUGS FOUND']);
    expect(detectKeywords('**HANDOFF TO DEVELOPER**: brief ready', KW, 'relaxed')).toEqual(['HANDOFF TO DEVELOPER']);
  });
  test('several keywords on their own lines are all reported (the router calls that ambiguous)', () => {
    expect(detectKeywords('BUGS FOUND\nAPPROVED', KW, 'relaxed')).toEqual(['BUGS FOUND', 'APPROVED']);
    expect(detectKeywords('APPROVED\nAPPROVED', KW, 'relaxed')).toEqual(['APPROVED']);
  });
  test('on one line the longest keyword wins', () => {
    expect(detectKeywords('HANDOFF TO DEVELOPER', ['HANDOFF', 'HANDOFF TO DEVELOPER'], 'relaxed')).toEqual(['HANDOFF TO DEVELOPER']);
    expect(detectKeywords('HANDOFF now', ['HANDOFF', 'HANDOFF TO DEVELOPER'], 'relaxed')).toEqual(['HANDOFF']);
  });
});

describe('strict line matching (graph)', () => {
  test('only the keyword alone on its line matches', () => {
    expect(detectKeywords('APPROVED', KW, 'strict')).toEqual(['APPROVED']);
    expect(detectKeywords('**approved**', KW, 'strict')).toEqual(['APPROVED']);
    expect(detectKeywords('APPROVED: see notes', KW, 'strict')).toEqual([]);
    expect(detectKeywords('APPROVED with notes', KW, 'strict')).toEqual([]);
  });
  test('lineMatches and normalizeKeyword', () => {
    expect(normalizeKeyword('  handoff   to _developer_ ')).toBe('HANDOFF TO DEVELOPER');
    expect(lineMatches('bugs found!', 'BUGS FOUND', 'relaxed')).toBe(true);
    expect(lineMatches('bugs found!', 'BUGS FOUND', 'strict')).toBe(false);
    expect(lineMatches('anything', '', 'relaxed')).toBe(false);
  });
});

describe('handoff(route_keyword) replaces text scanning', () => {
  test('the argument routes directly; the text is not scanned', () => {
    expect(signalsOf({ text: 'APPROVED\nBUGS FOUND', handoff: 'bugs found' }, KW, 'relaxed')).toEqual({ found: ['BUGS FOUND'] });
    expect(signalsOf({ text: 'APPROVED', handoff: 'NOPE' }, KW, 'relaxed')).toEqual({ found: [], unknownHandoff: 'NOPE' });
    expect(resolveHandoff('approved', KW)).toBe('APPROVED');
  });
});

describe('properties', () => {
  const word = fc.stringMatching(/^x[a-z]{0,7}$/); // never a keyword
  test('a keyword preceded by a word on the same line never matches', () => {
    fc.assert(fc.property(word, fc.constantFrom(...KW), fc.constantFrom('relaxed' as const, 'strict' as const), (w, k, mode) => {
      expect(detectKeywords(`${w} ${k}`, KW, mode)).toEqual([]);
    }));
  });
  test('a keyword alone on a line always matches, whatever the case and surrounding lines', () => {
    fc.assert(fc.property(fc.array(word), fc.constantFrom(...KW), fc.boolean(), (lines, k, lower) => {
      const text = [...lines, lower ? k.toLowerCase() : k, ...lines].join('\n');
      expect(detectKeywords(text, KW, 'strict')).toEqual([k]);
    }));
  });
});
