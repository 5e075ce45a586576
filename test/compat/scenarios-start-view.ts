/**
 * Compat scenario for the agent view in the start input (RunAgentInput.agent_view, as
 * AgentloomClient starts an agent run), patch `agent-view-in-start-input`: a run started with its
 * view and continued-as-new after every turn, the view carried into the next run. On a version
 * before the patch (the landed base) the worker ignores the view and runs loadAgent: that is the
 * old side, a history with no marker, which the current code replays through loadAgent. On the
 * patched code the run records the marker and issues no loadAgent: the new side.
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
    waitsAt: 'tool approval of a run started with its agent view (no loadAgent on the patched code), continuing-as-new after every turn',
    patches: ['agent-view-in-start-input'],
    workflowType: 'agfReactWorkflow',
    bundle: () => b,
    input: 'multiply',
    carried: { continue_as_new_every: 1 },
    startArgs: { agent_view: agentView(b, b.agents['c-start-view']) as unknown as JsonObject },
    ready: (t: Member[]) => t.some((m) => m.open && (m.status?.pending_approvals.length ?? 0) === 1),
    expected: 'viewed 12',
  }];
}
