/**
 * citations_required, compiled from real definitions: the output-level requirement
 * (`interface.output.provenance.citations_required`) on its own, and a knowledge base's requirement,
 * which an agent may tighten but never relax (AGF009), neither per ref nor at the output.
 */
import { citationsRequired } from '../../src/runtime/knowledge-search';
import { agentDefinitions, compileAgent, Definitions, kb, scripted, type FrontMatter } from '../helpers/definitions';

const DOCS = { type: 'inline', documents: [{ id: 'refunds', title: 'Refunds', text: 'Refunds within 30 days.' }] };
const LAX = kb('lax-docs', DOCS);
const STRICT = kb('strict-docs', DOCS, { citations_required: true });
const OUTPUT_STRING = { schema: { type: 'string' } };

function diagnostics(front: FrontMatter, knowledge = [LAX]) {
  const defs = new Definitions();
  defs.addAll(agentDefinitions({ agent_id: 'cite-agent', model: scripted({}), knowledge, front }));
  try {
    return defs.diagnostics('cite-agent');
  } finally {
    defs.remove();
  }
}

test('the output-level requirement compiles onto the agent and makes citations required with a lax knowledge base', () => {
  const { agent, defs } = compileAgent({
    agent_id: 'cite-output', model: scripted({}), knowledge: [LAX],
    front: { interface: { input: { schema: { type: 'string' }, examples: ['hi'] }, output: { ...OUTPUT_STRING, provenance: { citations_required: true } } } },
  });
  defs.remove();
  expect(agent.interface.output.provenance).toEqual({ citations_required: true });
  expect(agent.knowledge.refs.map((k) => [k.kb_id, k.citations_required])).toEqual([['lax-docs', false]]);
  expect(citationsRequired(agent)).toBe(true);
});

test('without the output-level requirement and with a lax knowledge base, citations are not required', () => {
  const { agent, defs } = compileAgent({ agent_id: 'cite-none', model: scripted({}), knowledge: [LAX] });
  defs.remove();
  expect(agent.interface.output.provenance).toBeUndefined();
  expect(citationsRequired(agent)).toBe(false);
});

test("a knowledge base's requirement reaches the agent that does not repeat it; an agent may tighten a lax one", () => {
  const strict = compileAgent({ agent_id: 'cite-strict', model: scripted({}), knowledge: [STRICT] });
  strict.defs.remove();
  expect(strict.agent.knowledge.refs.map((k) => [k.kb_id, k.citations_required])).toEqual([['strict-docs', true]]);
  expect(citationsRequired(strict.agent)).toBe(true);
  const tightened = compileAgent({ agent_id: 'cite-tight', model: scripted({}), knowledge: [LAX], front: { knowledge: { refs: [{ ref: 'lax-docs', citations_required: true }] } } });
  tightened.defs.remove();
  expect(tightened.agent.knowledge.refs.map((k) => [k.kb_id, k.citations_required])).toEqual([['lax-docs', true]]);
});

test('relaxing a knowledge base that requires citations is AGF009, per ref and at the output', () => {
  const perRef = diagnostics({ knowledge: { refs: [{ ref: 'strict-docs', citations_required: false }] } }, [STRICT]);
  const refErrors = perRef.filter((d) => d.severity === 'error');
  expect(refErrors.map((d) => [d.code, d.field])).toEqual([['AGF009', 'knowledge.refs[0].citations_required']]);
  expect(refErrors[0].message).toMatch(/loosens the registry setting of `strict-docs`/);
  const atOutput = diagnostics({ interface: { input: { schema: { type: 'string' }, examples: ['hi'] }, output: { ...OUTPUT_STRING, provenance: { citations_required: false } } } }, [STRICT]);
  const errors = atOutput.filter((d) => d.severity === 'error');
  expect(errors.map((d) => [d.code, d.field])).toEqual([['AGF009', 'interface.output.provenance.citations_required']]);
  expect(errors[0].message).toMatch(/loosens what knowledge base `strict-docs` requires: answers must cite them; remove the override or set it to true/);
});

test('an explicit output-level false with lax knowledge bases is no error (nothing is relaxed)', () => {
  const ds = diagnostics({ interface: { input: { schema: { type: 'string' }, examples: ['hi'] }, output: { ...OUTPUT_STRING, provenance: { citations_required: false } } } });
  expect(ds.filter((d) => d.severity === 'error')).toEqual([]);
});
