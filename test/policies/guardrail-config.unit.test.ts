/**
 * Builtin guardrail provider configs are checked at compile time (issue 11 point 5, REG011):
 * src/compiler/guardrail-config.ts per provider, and compiling an agent that references a broken
 * guardrail fails with the guardrail file and line instead of every run failing at the guardrail.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import { builtinGuardrailConfigProblems } from '../../src/compiler/guardrail-config';

const problems = (provider: unknown) => builtinGuardrailConfigProblems(provider).map((p) => `${p.path.join('.')}: ${p.message}`);

describe('builtin guardrail provider config', () => {
  test('json-schema needs config.schema, and a valid one', () => {
    expect(problems({ type: 'builtin', name: 'json-schema' })).toEqual([expect.stringMatching(/^config: the json-schema provider needs `config.schema`/)]);
    expect(problems({ type: 'builtin', name: 'json-schema', config: { schema: { type: 'nonsense' } } })).toEqual([expect.stringMatching(/^config.schema: config.schema is not a valid JSON Schema/)]);
    expect(problems({ type: 'builtin', name: 'json-schema', config: { schema: { type: 'object', required: ['answer'] } } })).toEqual([]);
  });
  test('pii-regex: known kinds, patterns that compile', () => {
    expect(problems({ type: 'builtin', name: 'pii-regex', config: { kinds: ['email', 'passport'], patterns: [{ kind: 'emp', pattern: 'E-[0-9]{6}' }, { pattern: '(' }] } }))
      .toEqual([expect.stringMatching(/^config.kinds.1: `passport` is not one of: email, iban, card, ssn, phone/), expect.stringMatching(/^config.patterns.1.pattern: invalid regular expression/)]);
    expect(problems({ type: 'builtin', name: 'pii-regex' })).toEqual([]);
  });
  test('keyword-score: phrase lists, weights, include_defaults', () => {
    expect(problems({ type: 'builtin', name: 'keyword-score', config: { keywords: ['ignore previous', { phrase: 'jailbreak', weight: 8 }, { weight: 2 }], default_weight: 'high', include_defaults: 'yes' } }))
      .toEqual([expect.stringMatching(/^config.keywords.2: /), expect.stringMatching(/^config.default_weight: /), expect.stringMatching(/^config.include_defaults: /)]);
    expect(problems({ type: 'builtin', name: 'keyword-score', config: { phrases: { 'act as': 4 } } })).toEqual([]);
  });
  test('blocked-content: the seed categories only; unknown builtin names refused', () => {
    expect(problems({ type: 'builtin', name: 'blocked-content', config: { categories: ['violence', 'gossip'] } })).toEqual([expect.stringMatching(/^config.categories.1: `gossip`/)]);
    expect(problems({ type: 'builtin', name: 'regex-magic' })).toEqual([expect.stringMatching(/^name: `regex-magic` is not a builtin guardrail provider; write one of: pii-regex, keyword-score, json-schema, blocked-content/)]);
    expect(problems({ type: 'http', config: { url: 'http://127.0.0.1:5002/analyze' } })).toEqual([]);
  });
});

test('an agent referencing a json-schema guardrail without config.schema does not compile: REG011 at the guardrail file and line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reg011-'));
  fs.cpSync(path.join(__dirname, '..', '..', 'examples', 'customer-support'), dir, { recursive: true });
  const file = path.join(dir, 'guardrails', 'unsafe-content-check.guardrail.md');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('name: keyword-score', 'name: json-schema'));
  const { bundle, diagnostics } = compileBundle(dir, 'customer-support-agent');
  const hit = diagnostics.find((d) => d.code === 'REG011');
  expect(bundle).toBeUndefined();
  expect(hit).toMatchObject({ severity: 'error', line: 10 });
  expect(hit?.file).toMatch(/guardrails[\\/]unsafe-content-check\.guardrail\.md$/);
  expect(hit?.message).toMatch(/needs `config.schema`/);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('guardrail provider types', () => {
  test('a type other than builtin, llm or http is refused, naming the supported ones', () => {
    expect(problems({ type: 'bedrock', name: 'gr-123' })).toEqual(['type: guardrail provider type `bedrock` is not supported; write one of: builtin, llm, http']);
    expect(problems({ name: 'pii-regex' })).toEqual(['type: guardrail provider type `undefined` is not supported; write one of: builtin, llm, http']);
  });
  test('llm: a judge model and a known check; language and topic checks need their lists', () => {
    expect(problems({ type: 'llm', config: { model: 'judge', check: 'jailbreak' } })).toEqual([]);
    expect(problems({ type: 'llm', config: { model: 'judge', check: 'hallucination' } })).toEqual([]);
    expect(problems({ type: 'llm' })).toEqual([expect.stringMatching(/^config: an llm guardrail needs `config.model`/), expect.stringMatching(/^config: an llm guardrail needs `config.check`, one of: jailbreak, language, grounding, hallucination, topic/)]);
    expect(problems({ type: 'llm', config: { model: 'judge', check: 'toxicity' } })).toEqual([expect.stringMatching(/^config.check: .*one of: jailbreak/)]);
    expect(problems({ type: 'llm', config: { model: 'judge', check: 'language' } })).toEqual([expect.stringMatching(/^config: the language check needs `config.languages`/)]);
    expect(problems({ type: 'llm', config: { model: 'judge', check: 'topic', topics: [] } })).toEqual([expect.stringMatching(/^config.topics: config.topics must be a non-empty list/)]);
  });
  test('http: an http(s) url without credentials, a known format, typed options', () => {
    expect(problems({ type: 'http' })).toEqual([expect.stringMatching(/^config: an http guardrail needs `config.url`/)]);
    expect(problems({ type: 'http', config: { url: 'ftp://x/analyze' } })).toEqual([expect.stringMatching(/^config.url: /)]);
    expect(problems({ type: 'http', config: { url: 'https://u:p@x/analyze' } })).toEqual([expect.stringMatching(/^config.url: config.url must not hold credentials/)]);
    expect(problems({ type: 'http', config: { url: 'https://x/analyze', format: 'soap', score_threshold: 3, allowed_hosts: 'x' } }))
      .toEqual([expect.stringMatching(/^config.format: .*presidio, moderation/), expect.stringMatching(/^config.allowed_hosts: /), expect.stringMatching(/^config.score_threshold: /)]);
  });
});
