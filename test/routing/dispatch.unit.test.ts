import { attemptOrder, explainRanking, inputFromText, rankAgents, scoreAgent, words } from '../../src/routing/dispatch';

const billing = { agent_id: 'billing-agent', routing: { intents: ['billing_question', 'refund_request'], trigger_phrases: ['charged twice', 'refund'], priority: 60, fallback_agents: ['general-assistant', 'billing-agent', 'general-assistant'] } };
const refunds = { agent_id: 'refunds-agent', routing: { intents: ['refund_request'], trigger_phrases: ['refund'], priority: 60 } };
const password = { agent_id: 'password-agent', routing: { intents: ['password_reset'], trigger_phrases: ['reset password'], priority: 90 } };
const general = { agent_id: 'general-assistant', routing: { trigger_phrases: ['help'], priority: 10 } };
const plain = { agent_id: 'no-routing' };
const five = [plain, general, password, refunds, billing];

test('words: case, punctuation and scripts', () => {
  expect(words('Charged TWICE, please: refund!')).toEqual(['charged', 'twice', 'please', 'refund']);
  expect(words('réinitialiser le mot-de-passe')).toEqual(['réinitialiser', 'le', 'mot', 'de', 'passe']);
});

test('a trigger phrase matches only as contiguous whole words', () => {
  expect(scoreAgent('I was charged twice', billing).matches.map((m) => m.value)).toEqual(['charged twice']);
  expect(scoreAgent('twice I was charged', billing).matches).toEqual([]);
  expect(scoreAgent('refunded', billing).matches).toEqual([]); // not a whole word
});

test('intents: full match +2 (any order), at least half +1, tiers', () => {
  const full = scoreAgent('a question about billing', billing);
  expect(full.matches).toEqual([{ kind: 'intent', value: 'billing_question', points: 2 }]);
  expect(full.tier).toBe(2);
  const partial = scoreAgent('where is my request', refunds);
  expect(partial.matches).toEqual([{ kind: 'partial-intent', value: 'refund_request', points: 1 }]);
  expect(partial.tier).toBe(1);
  expect(scoreAgent('hello', refunds).tier).toBe(0);
});

test('ranking: tier first, then priority, then score, then agent_id; the non-matching last', () => {
  // billing and refunds tie on priority 60: billing has more evidence (two phrases + partial intent)
  const r = rankAgents('I was charged twice, please refund me', five);
  expect(r.map((x) => `${x.agent_id}:${x.tier}:${x.priority}:${x.score}`)).toEqual([
    'billing-agent:2:60:7', 'refunds-agent:2:60:4', 'password-agent:0:90:0', 'no-routing:0:50:0', 'general-assistant:0:10:0',
  ]);
  // both tier 2: priority 90 beats the stronger match at 60 (the seed: higher priority wins)
  expect(rankAgents('refund and reset password', five)[0].agent_id).toBe('password-agent');
  // a full tie is broken by agent_id, whatever the input order
  const a = { agent_id: 'b-agent', routing: { trigger_phrases: ['refund'] } };
  const b = { agent_id: 'a-agent', routing: { trigger_phrases: ['refund'] } };
  expect(rankAgents('refund', [a, b]).map((x) => x.agent_id)).toEqual(['a-agent', 'b-agent']);
  expect(rankAgents('refund', [b, a]).map((x) => x.agent_id)).toEqual(['a-agent', 'b-agent']);
  // a partial intent never outranks a trigger phrase, however high its priority
  const loud = { agent_id: 'loud', routing: { intents: ['refund_request'], priority: 100 } };
  expect(rankAgents('refund please', [loud, refunds])[0].agent_id).toBe('refunds-agent');
});

test('attempt order: the winner, then its fallback agents once each', () => {
  expect(attemptOrder(rankAgents('refund', [billing])[0])).toEqual(['billing-agent', 'general-assistant']);
});

test('explain names every candidate with why', () => {
  const text = explainRanking(rankAgents('charged twice', [billing, general]));
  expect(text.split('\n')[0]).toMatch(/1\. billing-agent\s+tier 2 {2}priority {2}60 {2}score {2}3 {2}trigger "charged twice" \+3/);
  expect(text.split('\n')[1]).toContain('no trigger phrase or intent matched');
});

test('the text goes into the first required string property, else the first string property', () => {
  expect(inputFromText({ type: 'object', properties: { n: { type: 'integer' }, note: { type: 'string' }, question: { type: 'string' } }, required: ['question'] }, 'hi')).toEqual({ question: 'hi' });
  expect(inputFromText({ type: 'object', properties: { note: { type: 'string' } } }, 'hi')).toEqual({ note: 'hi' });
  expect(inputFromText({ type: 'object', properties: { n: { type: 'integer' } } }, 'hi')).toBeUndefined();
});
