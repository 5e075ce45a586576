/**
 * What counts as grounded (decision 258; src/runtime/knowledge-search.ts groundingProblem): an
 * answer must cite a chunk this run retrieved, cite nothing it did not retrieve, and at least half
 * of its content words must occur in the chunks it cites.
 */
import { chunksInToolResult, groundingProblem, groundingRequired, type KnowledgeChunk } from '../../src/runtime/knowledge-search';
import { compileAgent, kb, scripted } from '../helpers/definitions';

/** The `policy` source as an agent's compiled knowledge.refs holds it (from its .kb.md). */
const policy = compileAgent({ agent_id: 'grounded', model: scripted({}), knowledge: [kb('policy', { type: 'inline', documents: [] })] }).agent.knowledge.refs[0];
const refunds: KnowledgeChunk = { kb_id: 'policy', id: 'refunds', title: 'Refunds', text: 'Refunds are paid to the original card within 30 days.' };
const long: KnowledgeChunk = { kb_id: 'policy', id: 'guide#2', text: 'Passwords are reset from the Settings page.' };

test('grounded: a retrieved chunk cited and the answer says what it says (any citation form)', () => {
  expect(groundingProblem('Refunds are paid to the original card within 30 days [policy/refunds].', [policy], [refunds])).toBeUndefined();
  expect(groundingProblem('Reset passwords from Settings [policy/guide].', [policy], [long])).toBeUndefined();
  expect(groundingProblem('{"answer":"Refunds are paid within 30 days","suggested_articles":["refunds"]}', [policy], [refunds])).toBeUndefined();
});

test('not grounded: nothing retrieved; nothing retrieved cited; a citation not retrieved; claims beyond the cited chunks', () => {
  expect(groundingProblem('Refunds take 30 days [policy/refunds].', [policy], [])).toMatch(/no knowledge was retrieved in this run: search the agent's knowledge sources \(policy\) with search_knowledge/);
  expect(groundingProblem('Refunds are paid within 30 days.', [policy], [refunds])).toMatch(/cites none of the chunks retrieved in this run.*e\.g\. \[policy\/refunds\]/);
  expect(groundingProblem('Refunds are paid within 30 days [policy/refunds] [policy/bonus].', [policy], [refunds])).toMatch(/cites \[policy\/bonus\], which this run did not retrieve/);
  expect(groundingProblem('Refunds include a bonus gift voucher and free shipping forever [policy/refunds].', [policy], [refunds])).toMatch(/not supported by the chunks it cites \(policy\/refunds\): 1 of its 8 content words occur in them, 50% are needed \(unsupported: include, bonus, gift/);
});

test('search results are read from tool results; grounding_required from the agent or a source', () => {
  expect(chunksInToolResult(JSON.stringify([{ ...refunds, score: 1 }]))).toEqual([refunds]);
  expect(chunksInToolResult('no article matches')).toEqual([]);
  expect(chunksInToolResult('{"kb_id":"x"}')).toEqual([]);
  expect(groundingRequired({ knowledge: { refs: [policy] } })).toBe(false);
  expect(groundingRequired({ knowledge: { refs: [policy], retrieval: { grounding_required: true } } })).toBe(true);
  expect(groundingRequired({ knowledge: { refs: [{ ...policy, retrieval: { grounding_required: true } }] } })).toBe(true);
  expect(groundingRequired({ knowledge: { refs: [{ ...policy, status: 'disabled', retrieval: { grounding_required: true } }] } })).toBe(false);
});
