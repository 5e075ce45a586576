/**
 * Compat scenario for patch `artifacts-save` (src/workflows/react/artifacts.ts): a react agent with
 * every artifact kind enabled (standard retention), stopped while a tool call waits for approval.
 * Recorded before the patch, the run completes without writing artifacts; after it, the completed
 * run schedules saveRunArtifacts. Both finish with the same output.
 */
import { agent, builtinTool, scriptedModel } from '../runtime/builders';
import { bundle } from '../orchestration/builders';
import type { Member } from './tree';
import type { Scenario } from './scenarios';

export function artifactScenarios(): Scenario[] {
  return [{
    name: 'react-artifacts-mid-approval',
    waitsAt: 'tool approval on an agent with artifacts enabled (input, output, intermediate; standard)',
    patches: ['artifacts-save'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = agent({
        agent_id: 'c-artifacts',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 'r1', name: 'arithmetic', arguments: { a: 2, b: 5, op: 'mul' } }] }, { content: 'kept {{last_tool_result}}' }] }),
        tools: [builtinTool('arithmetic', { approval_required: true })],
      });
      a.artifacts = { enabled: true, save_input: true, save_output: true, save_intermediate: true, retention_class: 'standard' };
      a.runtime = { ...a.runtime, timeout_seconds: 3600 };
      return bundle('c-artifacts', [a]);
    },
    input: 'multiply and keep',
    ready: (t: Member[]) => t.some((m) => m.open && (m.status?.pending_approvals.length ?? 0) === 1),
    expected: 'kept 10',
  }];
}
