/**
 * The start input with the agent's view (withAgentView, what AgentloomClient and the throughput
 * bench start an agent run with): the view is the one the loadAgent activity returns, it is added
 * only for the workflow type that takes it, and everything else in the input is kept.
 */
import { agentView, withAgentView, VIEW_IN_START_INPUT } from '../../src/runtime/agent-view-build';
import { agentView as loaderView } from '../../src/activities/agent-loader';
import type { RunAgentInput } from '../../src/shared/contract';
import { compileAgent, scripted } from '../helpers/definitions';

const BODY = '# Purpose\nHidden purpose.\n\n# System behavior\nAnswer.\n\n# Rules\n- Be brief.\n';

test('an agent run gets the view loadAgent would return, without instructions, the rest of its input kept', () => {
  const { bundle, agent } = compileAgent({ agent_id: 'viewed', model: scripted({}), body: BODY });
  const input: RunAgentInput = { bundle: { hash: 'sha256:00' }, agent_id: 'viewed', input: { q: 1 }, options: { allow_draft: true }, carried: { continue_as_new_every: 2 } };
  const out = withAgentView(input, bundle, 'agfReactWorkflow');
  expect(out).toEqual({ ...input, agent_view: agentView(bundle, agent) });
  expect(loaderView).toBe(agentView); // one implementation: the loader's is this one
  expect(JSON.stringify(out)).not.toContain('Hidden purpose');
  expect(out.agent_view).not.toHaveProperty('instructions');
  expect(input).not.toHaveProperty('agent_view'); // the caller's object is not changed
});

test('another workflow type, or an agent the bundle lacks, keeps the input as it is', () => {
  const { bundle } = compileAgent({ agent_id: 'viewed', model: scripted({}), body: BODY });
  const input: RunAgentInput = { bundle: { hash: 'sha256:00' }, agent_id: 'viewed', input: 'x' };
  expect(VIEW_IN_START_INPUT).toEqual(['agfReactWorkflow']);
  for (const type of ['agfSequentialWorkflow', 'graphWorkflow', 'strategiesWorkflow', 'sessionWorkflow']) expect(withAgentView(input, bundle, type)).toBe(input);
  const other = { ...input, agent_id: 'absent' };
  expect(withAgentView(other, bundle, 'agfReactWorkflow')).toBe(other);
});
