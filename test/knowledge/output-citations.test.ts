/**
 * citations_required on the shared dev server, where each requirement is set: on the output
 * (`interface.output.provenance.citations_required`) with a knowledge base that requires nothing,
 * and on the knowledge base only (the agent's reference says nothing, so the registry's requirement
 * holds). An uncited answer gets one correction turn, then the run fails with the reason.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { ScriptedReply } from '../../src/compiled/types';
import type { AgentRunResult } from '../../src/shared/contract';
import { Harness, startHarness } from '../runtime/harness';
import { storeTestBundle } from '../runtime/builders';
import { compileAgent, kb, scripted, type Definition, type FrontMatter } from '../helpers/definitions';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('output-citations');
});
afterAll(async () => {
  await h?.close();
});

const DOCS = { type: 'inline', documents: [{ id: 'refunds', title: 'Refunds', text: 'Refunds within 30 days.' }] };
const LAX = kb('handbook', DOCS);
const STRICT = kb('handbook', DOCS, { citations_required: true });
const OUTPUT_REQUIRES = { interface: { input: { schema: { type: 'string' }, examples: ['hi'] }, output: { schema: { type: 'string' }, provenance: { citations_required: true } } } };

async function run(id: string, turns: ScriptedReply[], knowledge: Definition, front: FrontMatter = {}): Promise<AgentRunResult> {
  const { bundle: compiled, defs } = compileAgent({ agent_id: id, model: scripted({ turns }), knowledge: [knowledge], front });
  defs.remove();
  const handle = await h.start({ bundle: await storeTestBundle(compiled), agent_id: id, input: 'refund?' });
  return handle.result();
}

async function failure(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as Error;
}

describe('interface.output.provenance.citations_required (the knowledge base requires nothing)', () => {
  test('an uncited answer is corrected once; the cited correction is the output', async () => {
    const res = await run('out-cite-fixed', [{ content: 'Refunds within 30 days.' }, { content: 'Refunds within 30 days [handbook/refunds].' }], LAX, OUTPUT_REQUIRES);
    expect(res.output).toBe('Refunds within 30 days [handbook/refunds].');
    expect(res.warnings.join('\n')).toMatch(/the answer cites none of the agent's knowledge sources \(handbook\).*asked the model for a correction/);
  }, 120_000);

  test('still uncited after the correction: the run fails with the reason', async () => {
    const cause = await failure(run('out-cite-never', [{ content: 'Refunds within 30 days.' }, { content: 'Trust me, 30 days.' }], LAX, OUTPUT_REQUIRES));
    expect(cause.message).toMatch(/final answer rejected after a correction turn: the answer cites none of the agent's knowledge sources \(handbook\), and citations are required: .*e\.g\. \[handbook\/refunds\]/);
  }, 120_000);

  test('the same agent without the output-level requirement: the uncited answer is the output, with no correction', async () => {
    const res = await run('out-cite-off', [{ content: 'Refunds within 30 days.' }, { content: 'a second turn that must not be asked for' }], LAX);
    expect(res.output).toBe('Refunds within 30 days.');
    expect(res.warnings.join('\n')).not.toMatch(/cites none/);
  }, 120_000);
});

describe("a knowledge base's citations_required, not repeated by the agent", () => {
  test('the registry requirement holds: an uncited answer is corrected, then the run fails', async () => {
    const cause = await failure(run('kb-cite-never', [{ content: 'Refunds within 30 days.' }, { content: 'Still 30 days.' }], STRICT));
    expect(cause.message).toMatch(/final answer rejected after a correction turn: the answer cites none of the agent's knowledge sources \(handbook\)/);
  }, 120_000);

  test('an agent tightening a lax knowledge base per ref gets the requirement too', async () => {
    const res = await run('kb-cite-tight', [{ content: 'Refunds within 30 days.' }, { content: 'See "refunds": 30 days.' }], LAX, { knowledge: { refs: [{ ref: 'handbook', citations_required: true }] } });
    expect(res.output).toBe('See "refunds": 30 days.');
    expect(res.warnings.join('\n')).toMatch(/cites none.*asked the model for a correction/);
  }, 120_000);
});
