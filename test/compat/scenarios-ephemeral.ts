/**
 * Compat scenario for patch `ephemeral-run` (src/workflows/react/ephemeral.ts): a root run started
 * with RunOptions.ephemeral waits on a tool approval. On the landed version the option is unknown
 * (the run keeps what it stores); on the current code the patch marker is recorded at the start and
 * the run ends by deleting what it stored (endEphemeralRun). Both finish on the new code the same
 * way: the approved call runs, then runtime.max_turns (1) fails the run.
 */
import { agent as reactAgent, builtinTool, scriptedModel } from '../runtime/builders';
import { bundle } from '../orchestration/builders';
import type { Scenario } from './scenarios';

export function ephemeralScenarios(): Scenario[] {
  return [{
    name: 'react-ephemeral-approval',
    waitsAt: 'tool approval of an ephemeral run (patch marker recorded at its start on the new code)',
    patches: ['ephemeral-run'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = reactAgent({
        agent_id: 'c-ephemeral',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 'e1', name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] }, { content: 'never reached' }] }),
        tools: [builtinTool('arithmetic', { approval_required: true })],
        runtime: { max_turns: 1, timeout_seconds: 3600 },
      });
      a.artifacts = { enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class: 'ephemeral' };
      return bundle(a.agent_id, [a]);
    },
    input: 'add',
    options: { ephemeral: true },
    ready: (t) => (t[0]?.status?.pending_approvals ?? []).some((p) => p.call_id === 'e1'),
    expectedError: /max_turns \(1\) reached/,
  }];
}
