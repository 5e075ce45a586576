/**
 * Compat scenario for patch `contract-orchestrator` (src/workflows/orchestrator.ts runMember): an
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
