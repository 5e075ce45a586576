/**
 * Compat scenarios for the orchestrator contract patches.
 *
 * `orchestrator-contract` (src/workflows/orchestrator.ts init/complete): an agf.sequential pipeline
 * declaring runtime.timeout_seconds and an object output schema, stopped while its only member
 * waits for a tool approval. The member answers in text, so the final output cannot match: recorded
 * before the patch or after it (the marker comes with the deadline at init), the run ends
 * OutputSchemaInvalid, since the output check reaches patched() only once the output is known.
 *
 * Patch `contract-orchestrator` (src/workflows/orchestrator.ts runMember): an
 * agf.sequential pipeline stopped while its first member waits for a tool approval; its second
 * member's mapped input lacks a required field. Recorded before the patch, the second member
 * starts anyway; after it, the member is refused before it starts, naming the member and the field.
 */
import { agent as member, bundle, locals } from '../orchestration/builders';
import type { Scenario } from './scenarios';
import { approvingSpeaker } from './scenarios-strategies';
import type { Member } from './tree';

export function contractScenarios(): Scenario[] {
  return [{
    name: 'contract-orchestrator-output-refused',
    waitsAt: 'agf.sequential with its own timeout_seconds and output schema: step 1 waiting for tool approval; its text answer will not match the schema',
    patches: ['orchestrator-contract'],
    workflowType: 'agfSequentialWorkflow',
    bundle: () =>
      bundle('c-own-contract', [
        member({
          id: 'c-own-contract',
          policy: { id: 'agf.sequential', config: { steps: [{ agent: 'quote' }], output_from: 'quote' } },
          local_agents: locals('quote'),
          timeout_seconds: 3600,
          output_schema: { type: 'object', properties: { ticket: { type: 'string' } }, required: ['ticket'] },
        }),
        approvingSpeaker('quote', 'T-{{last_tool_result}}'),
      ]),
    input: 'quote it',
    ready: (t: Member[]) => t.some((m) => m.open && m.workflowId.endsWith('/step-1-quote') && (m.status?.pending_approvals.length ?? 0) === 1),
    expectedError: /the output of 'c-own-contract' does not match its interface.output.schema: the output must be object, got string/,
  }, {
    name: 'contract-member-input-refused',
    waitsAt: 'agf.sequential: step 1 waiting for tool approval; step 2 (billing) will get an input without its required amount',
    patches: ['contract-orchestrator'],
    workflowType: 'agfSequentialWorkflow',
    bundle: () =>
      bundle('c-contract', [
        member({ id: 'c-contract', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'quote' }, { agent: 'billing', input_mapping: { ticket_id: 'quote.output' } }], output_from: 'billing' } }, local_agents: locals('quote', 'billing') }),
        approvingSpeaker('quote', 'T-{{last_tool_result}}'),
        member({
          id: 'billing',
          input_schema: { type: 'object', properties: { ticket_id: { type: 'string' }, amount: { type: 'number' } }, required: ['ticket_id', 'amount'] },
          model: { turns: [{ content: 'billed' }] },
        }),
      ]),
    input: 'quote and bill',
    ready: (t: Member[]) => t.some((m) => m.open && m.workflowId.endsWith('/step-1-quote') && (m.status?.pending_approvals.length ?? 0) === 1),
    expectedError: /member 'billing' \(step-2-billing\) refused its input before its run started: required field 'amount' is missing/,
  }];
}
