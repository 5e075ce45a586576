/**
 * Compat scenario for patch `strategies-evidence` (src/workflows/strategies/evidence.ts): a state
 * machine whose transition declares HandoffContext, stopped while its first agent waits for a tool
 * approval. Recorded before the patch, the run keeps per-member workspaces and injects nothing;
 * after it, the run resolves one shared workspace at start and injects the handoff block. Both
 * finish with the same output (the receiving agent answers the same either way).
 */
import type { StrategiesPattern } from '../../src/compiled/types';
import { agent as member, answers, bundle } from '../orchestration/builders';
import type { Scenario } from './scenarios';
import { approvingSpeaker } from './scenarios-strategies';
import type { Member } from './tree';

export function evidenceScenarios(): Scenario[] {
  return [{
    name: 'strategies-handoff-context',
    waitsAt: 'statemachine with HandoffContext: the Writer (turn 1) waiting for tool approval before its signal fires the transition',
    patches: ['strategies-evidence'],
    workflowType: 'strategiesWorkflow',
    bundle: () => {
      const pattern: StrategiesPattern = {
        type: 'strategies',
        agents: [{ name: 'Writer', agent_id: 'ev-writer' }, { name: 'Checker', agent_id: 'ev-checker' }],
        config: {
          Selection: {
            Type: 'statemachine',
            StateMachine: {
              Initial: 'Writing',
              States: {
                Writing: { Agent: 'Writer', Transitions: [{ To: 'Checking', Signal: 'CHECK IT', HandoffContext: [{ Source: 'changes_recent:3' }, { Source: 'file:notes.md', MaxChars: 200 }] }] },
                Checking: { Agent: 'Checker', Terminal: true },
              },
            },
          },
          Termination: { Type: 'maxiterations', MaxIterations: 2 },
        } as unknown as StrategiesPattern['config'],
      };
      return bundle('c-strat-handoff', [
        member({ id: 'c-strat-handoff', model: answers('orchestrator'), pattern }),
        approvingSpeaker('ev-writer', 'wrote {{last_tool_result}}\nCHECK IT'),
        member({ id: 'ev-checker', model: answers('checked') }),
      ]);
    },
    input: 'write and check',
    ready: (t: Member[]) => t.some((m) => m.open && m.workflowId.endsWith('/turn-1-Writer') && (m.status?.pending_approvals.length ?? 0) === 1),
    expected: 'checked',
  }];
}
