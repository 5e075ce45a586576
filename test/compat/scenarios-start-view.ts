/**
 * Compat scenario for the agent view in the start input (RunAgentInput.agent_view, as
 * AgentloomClient starts an agent run): no loadAgent activity, and the view carried into the next
 * run by continue-as-new. A change of input shape, not a patch: the run takes the view only when
 * its recorded start input holds one, so the histories of every other react scenario (no view)
 * keep replaying through loadAgent, and this one's through the view. `since` skips it on a base
 * that predates the field (a base would load the agent although the input holds a view).
 */
import type { JsonObject } from '../../src/compiled/types';
import { agentView } from '../../src/runtime/agent-view-build';
import { agent, builtinTool, scriptedModel } from '../runtime/builders';
import { bundle } from '../orchestration/builders';
import type { Member } from './tree';
import type { Scenario } from './scenarios';

export function startViewScenarios(): Scenario[] {
  const a = agent({
    agent_id: 'c-start-view',
    model: scriptedModel({ turns: [{ tool_calls: [{ id: 'v1', name: 'arithmetic', arguments: { a: 3, b: 4, op: 'mul' } }] }, { content: 'viewed {{last_tool_result}}' }] }),
    tools: [builtinTool('arithmetic', { approval_required: true })],
  });
  a.runtime = { ...a.runtime, timeout_seconds: 3600 };
  const b = bundle('c-start-view', [a]);
  return [{
    name: 'react-view-in-start-input',
    waitsAt: 'tool approval of a run started with its agent view (no loadAgent), continuing-as-new after every turn',
    patches: [],
    since: '0443933',
    workflowType: 'agfReactWorkflow',
    bundle: () => b,
    input: 'multiply',
    carried: { continue_as_new_every: 1 },
    startArgs: { agent_view: agentView(b, b.agents['c-start-view']) as unknown as JsonObject },
    ready: (t: Member[]) => t.some((m) => m.open && (m.status?.pending_approvals.length ?? 0) === 1),
    expected: 'viewed 12',
  }];
}
