/** A member whose policies the react loop enforces never runs inline in a batch (it runs as a child react run). */
import type { CompiledAgent } from '../../src/compiled/types';
import type { AgentView } from '../../src/runtime/agent-view';
import { inlineMemberBlocker } from '../../src/runtime/inline-member';
import { answers } from '../orchestration/builders';
import { compileAgent, scripted } from '../helpers/definitions';

/** A member with no runtime policy, compiled from its definition. */
const MEMBER = compileAgent({ agent_id: 'member', model: scripted(answers('ok')) }).agent;

function plain(over: Partial<CompiledAgent['policies']> = {}, region?: string): AgentView {
  const { instructions: _i, sections: _s, ...rest } = structuredClone(MEMBER);
  void _i;
  void _s;
  const v: AgentView = { ...rest, agent_tool_types: {} };
  v.policies = { ...v.policies, ...over };
  if (region) v.runtime = { ...v.runtime, model: { ...v.runtime.model, region } };
  return v;
}

test('runtime policies keep a member out of the inline path', () => {
  const call = { workflowType: 'agfReactWorkflow' };
  expect(inlineMemberBlocker(plain(), call)).toBeUndefined();
  // Declared in an older bundle (no runtime_pass/audit_trail): the recorded choice stays inline.
  expect(inlineMemberBlocker(plain({ pii_redaction: true }), call)).toBeUndefined();
  for (const p of [{ pii_redaction: true, runtime_pass: true as const }, { audit_level: 'full' as const, audit_trail: true as const }]) {
    expect(inlineMemberBlocker(plain(p), call)).toMatch(/^has runtime policies/);
  }
  expect(inlineMemberBlocker(plain({ data_residency: 'eu' }, 'eu-west-1'), call)).toMatch(/^has runtime policies/);
  expect(inlineMemberBlocker(plain({ data_residency: 'eu' }), call)).toBeUndefined();
});
