/**
 * Compat scenario for patch `memory-orchestrator` (src/workflows/orchestrator-memory.ts): an
 * agf.sequential pipeline whose agent reads and writes back a memory collection (writeback
 * `approval_required`), stopped while its only member waits for a tool approval. Recorded before
 * the patch, the run neither reads nor writes memory and ends with the member's answer; recorded
 * after it (the marker comes with the memory read at the start, before the member starts), the
 * new code finishes the member, then the writeback waits for approval in the root (the generic
 * driver approves `memory-1-prefs`) and the run ends with the same answer.
 */
import type { CompiledCollection } from '../../src/compiled/types';
import { agent as member, bundle, locals } from '../orchestration/builders';
import type { Scenario } from './scenarios';
import { approvingSpeaker } from './scenarios-strategies';
import type { Member } from './tree';

const prefs: CompiledCollection = {
  collection_id: 'prefs', version: '1.0.0', status: 'active', scope: 'project',
  backend: { type: 'memory', namespace: 'prefs/{actorId}' },
  writeback: { enabled: true, strategy: 'output', approval_required: true },
};

export function memoryScenarios(): Scenario[] {
  return [{
    name: 'orchestrator-memory-mid-approval',
    waitsAt: 'agf.sequential whose agent reads and writes back a memory collection (writeback approval_required): step 1 waiting for tool approval',
    patches: ['memory-orchestrator'],
    workflowType: 'agfSequentialWorkflow',
    bundle: () => {
      const root = member({ id: 'c-orch-memory', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'payer' }], output_from: 'payer' } }, local_agents: locals('payer') });
      root.memory = { mode: 'project', read_collections: [prefs], write_collections: [prefs] };
      return bundle('c-orch-memory', [root, approvingSpeaker('payer', 'paid {{last_tool_result}}')]);
    },
    input: 'pay and remember',
    options: { actor_id: 'ada' },
    ready: (t: Member[]) => t.some((m) => m.open && m.workflowId.endsWith('/step-1-payer') && (m.status?.pending_approvals.length ?? 0) === 1),
    expected: 'paid 5',
  }];
}
