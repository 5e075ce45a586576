/**
 * `state.working_state`, compiled from real definitions: both values reach the compiled agent and the
 * session's plan (ephemeral when undeclared); any other value is refused with the allowed ones.
 */
import { sessionPlan } from '../../src/activities/session-turns';
import { agentDefinitions, compileAgent, Definitions, scripted } from '../helpers/definitions';

function plan(state?: Record<string, unknown>) {
  const { agent, defs } = compileAgent({ agent_id: 'ws-agent', model: scripted({}), front: state ? { state } : {} });
  defs.remove();
  return { state: agent.state, plan: sessionPlan(agent) };
}

test('working_state: session and ephemeral compile onto the agent and into the session plan', () => {
  const kept = plan({ working_state: 'session', scratchpad_visible_to_model: true });
  expect(kept.state).toEqual({ working_state: 'session', scratchpad_visible_to_model: true });
  expect(kept.plan).toMatchObject({ working_state: 'session', scratchpad_visible_to_model: true, session_history: 'session' });
  const dropped = plan({ working_state: 'ephemeral' });
  expect(dropped.plan).toMatchObject({ working_state: 'ephemeral', scratchpad_visible_to_model: false });
});

test('undeclared working_state is ephemeral (nothing kept between turns)', () => {
  expect(plan().plan.working_state).toBe('ephemeral');
  expect(plan({ session_history: 'session' }).plan.working_state).toBe('ephemeral');
});

test('a working_state other than session or ephemeral is an error naming the allowed values', () => {
  const defs = new Definitions();
  defs.addAll(agentDefinitions({ agent_id: 'ws-bad', model: scripted({}), front: { state: { working_state: 'forever' } } }));
  const errors = defs.diagnostics('ws-bad').filter((d) => d.severity === 'error');
  defs.remove();
  expect(errors).toHaveLength(1);
  expect(errors[0].field).toBe('state.working_state');
  expect(errors[0].message).toMatch(/ephemeral.*session|session.*ephemeral/);
});
