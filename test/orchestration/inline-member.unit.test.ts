/**
 * The rule for which agf.batch members run inline in their parent (src/runtime/inline-member.ts):
 * a plain agf.react agent qualifies; every feature that needs a workflow of its own sends it to a
 * child workflow, with the reason. Also the model activity options both paths share.
 */
import type { CompiledAgent } from '../../src/compiled/types';
import type { AgentView } from '../../src/runtime/agent-view';
import { inlineMemberBlocker, modelActivityOptions, MemberCall } from '../../src/runtime/inline-member';
import { answers } from './builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';

function view(a: CompiledAgent): AgentView {
  const { instructions: _i, sections: _s, ...rest } = structuredClone(a);
  void _i;
  void _s;
  return { ...rest, agent_tool_types: {} };
}

/** A member that qualifies, compiled from its definition: a scripted model, nothing else declared. */
const MEMBER = compileAgent({ agent_id: 'member', model: scripted(answers('ok')) }).agent;
/** The same member with a registry tool, and with a fallback model (each compiled from definitions). */
const WITH_TOOL = compileAgent({ agent_id: 'member', model: scripted(answers('ok')), tools: [builtin('echo')] }).agent;
const WITH_FALLBACK = compileAgent({ agent_id: 'member', model: scripted(answers('ok')), others: [scripted(answers('fb'), 'fallback-model')], front: { runtime: { fallback_model: 'fallback-model' } } }).agent;

function plain(): AgentView {
  return view(MEMBER);
}

const react: MemberCall = { workflowType: 'agfReactWorkflow' };

test('a plain agf.react member with no tools, guardrails, escalation, approval, deadline or options runs inline', () => {
  expect(inlineMemberBlocker(plain(), react)).toBeUndefined();
  // Limits and the output schema are handled inline (the same checks the react loop makes).
  const limited = plain();
  limited.runtime.max_turns = 1;
  limited.runtime.max_input_chars = 10;
  limited.interface.output.schema = { type: 'object', required: ['n'] };
  expect(inlineMemberBlocker(limited, react)).toBeUndefined();
  // An options object with nothing set is no option.
  expect(inlineMemberBlocker(plain(), { ...react, options: {} })).toBeUndefined();
});

test.each<[string, (v: AgentView) => void, RegExp]>([
  ['a registry tool', (v) => { v.tools.refs = structuredClone(WITH_TOOL.tools.refs); }, /tools/],
  ['delegation', (v) => { v.orchestration.can_delegate = true; }, /delegate/],
  ['an escalation rule', (v) => { v.orchestration.escalation = [{ on: 'model_decision', target: { human_queue: 'q' } } as never]; }, /escalation/],
  ['an output guardrail', (v) => { v.guardrails.output = [{ id: 'g' } as never]; }, /guardrails/],
  ['an input guardrail', (v) => { v.guardrails.input = [{ id: 'g' } as never]; }, /guardrails/],
  ['human approval', (v) => { v.policies.require_human_approval = true; }, /approval/],
  ['user confirmation for a tool', (v) => { v.guardrails.tool_calls.require_user_confirmation_for = ['x']; }, /approval/],
  ['runtime.timeout_seconds', (v) => { v.runtime.timeout_seconds = 30; }, /timeout_seconds/],
  ['a fallback model', (v) => { v.runtime.fallback_model = structuredClone(WITH_FALLBACK.runtime.fallback_model); }, /fallback/],
  ['a model preference the child run warns about', (v) => { v.execution_policy = { id: 'agf.react', config: { model: 'other' } }; }, /preferences/],
  ['top_k', (v) => { v.execution_policy = { id: 'agf.react', config: { top_k: 3 } }; }, /preferences/],
  ['another execution policy', (v) => { v.execution_policy = { id: 'agf.sequential', config: { steps: [] } } as never; }, /execution_policy agf.sequential/],
  ['an orchestration pattern', (v) => { v.orchestration.pattern = { type: 'swarm' } as never; }, /pattern swarm/],
])('%s sends the member to a child workflow', (_what, change, reason) => {
  const v = plain();
  change(v);
  expect(inlineMemberBlocker(v, react)).toMatch(reason);
});

test('what the caller asks for can also require a child workflow', () => {
  expect(inlineMemberBlocker(plain(), { workflowType: 'agfSequentialWorkflow' })).toMatch(/runs as agfSequentialWorkflow/);
  expect(inlineMemberBlocker(plain(), { ...react, overridden: true })).toMatch(/runs as/);
  expect(inlineMemberBlocker(plain(), { ...react, timeoutSeconds: 5 })).toMatch(/node_timeout/);
  expect(inlineMemberBlocker(plain(), { ...react, options: { context: { a: 1 } } })).toMatch(/run options/);
  expect(inlineMemberBlocker(plain(), { ...react, options: { forbid_tools: true } })).toMatch(/run options/);
});

test('model activity options follow runtime.retry_policy and the provider request timeout', () => {
  // No retry_policy: no attempt limit (an outage is waited out; the worker's outage interceptor ends other failures).
  expect(modelActivityOptions(plain())).toEqual({
    startToCloseTimeout: '330 seconds',
    heartbeatTimeout: '60 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
  // A fallback model takes over from a model that is down: 5 attempts, as before.
  const fb = plain();
  fb.runtime.fallback_model = { ...fb.runtime.model, model_id: 'backup' };
  expect(modelActivityOptions(fb).retry).toEqual({ maximumAttempts: 5, initialInterval: '1 second', backoffCoefficient: 2 });
  const v = plain();
  v.runtime.retry_policy = { max_attempts: 2, backoff_seconds: 3 };
  v.runtime.model = { ...v.runtime.model, provider: 'openai', openai: { base_url: 'http://x', model: 'm', request_timeout_seconds: 10 } };
  expect(modelActivityOptions(v)).toEqual({
    startToCloseTimeout: '40 seconds',
    heartbeatTimeout: '60 seconds',
    retry: { maximumAttempts: 2, initialInterval: '3 seconds', backoffCoefficient: 2 },
  });
});
