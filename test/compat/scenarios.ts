/**
 * The compat guard's catalogue: runs that stop at every kind of waiting point a deploy can find
 * them in (tool approval, delegation approval, a human queue, pause, timers, mid-fan-out, mid-loop,
 * mid-batch-shard, mid-graph, just before continue-as-new). Each is started on one version of the
 * code, driven to its waiting point, recorded (root and member histories), then finished on
 * another version; `patches` names the patch ids whose code path it reaches, so recorded fixtures
 * prove both sides of every patch.
 *
 * Bundles are built with the test builders (no compiler), in the compiled format every version
 * of the runtime reads.
 */
import type { Client } from '@temporalio/client';
import type { CompiledAgent, CompiledBundle, CompiledCollection, CompiledGuardrail, GraphPattern, JsonObject, JsonValue, SwarmPattern, WorkflowPattern } from '../../src/compiled/types';
import type { RunOptions } from '../../src/shared/contract';
import { agent as member, answers, bundle, byInput, handoff, locals } from '../orchestration/builders';
import { agent as reactAgent, builtinTool, scriptedModel } from '../runtime/builders';
import { Member, WIRE, waitForTree } from './tree';
import { evidenceScenarios } from './scenarios-evidence';
import { until } from '../helpers/wait';
import { contractScenarios } from './scenarios-contract';
import { strategiesScenarios } from './scenarios-strategies';
import { phaseScenarios } from './scenarios-phases';
import { llmScenarios } from './scenarios-llm';
import { execScenarios } from './scenarios-exec';
import { graphScenarios } from './scenarios-graph';
import { artifactScenarios } from './scenarios-artifacts';
import { sessionScenarios } from './scenarios-session';
import { ephemeralScenarios } from './scenarios-ephemeral';
import { memoryScenarios } from './scenarios-memory';
import { startViewScenarios } from './scenarios-start-view';

export interface Scenario {
  name: string;
  /** The waiting point, in words (printed in the report). */
  waitsAt: string;
  /** Patch ids whose code path the scenario reaches. */
  patches: string[];
  /** The commit that introduced what the scenario runs: a base that predates it skips the scenario. */
  since?: string;
  workflowType: string;
  bundle(): CompiledBundle;
  input: JsonValue;
  options?: RunOptions;
  /** RunAgentInput.carried at the start (test knobs such as continue_as_new_every). */
  carried?: JsonObject;
  /** More fields of the start argument (a session's `idle_timeout_seconds`). */
  startArgs?: JsonObject;
  /** Steps on the RECORDING version right after the start (a session's first message). */
  drive?(client: Client, rootId: string): Promise<void>;
  /** Dynamic config of the Temporal server this scenario needs (its own dev server instance). */
  server?: Record<string, number>;
  /** Start with a pause signal (signalWithStart). */
  startPaused?: boolean;
  /** The waiting point has been reached. */
  ready(tree: Member[]): boolean;
  /** Answer the decisions that come before the waiting point (e.g. a loop's first iteration). */
  answerBeforeReady?: boolean;
  /** Scenario-specific steps on the NEW code before the generic driver answers what is left. */
  resume?(client: Client, rootId: string): Promise<void>;
  /** The expected output of the finished run (compared as JSON)... */
  expected?: JsonValue;
  /** ...or the failure it must end with. */
  expectedError?: RegExp;
}

async function waitFor(pred: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  await until(async () => ((await pred()) ? true : undefined), what, ms);
}

const pending = (tree: Member[], where: (id: string) => boolean = () => true): number =>
  tree.filter((m) => m.open && where(m.workflowId)).reduce((n, m) => n + (m.status?.pending_approvals.length ?? 0), 0);

/** A member that calls `arithmetic` (approval required) once, then answers with the result. */
function approvingMember(id: string, a: number, b: number, extra: Partial<CompiledAgent> = {}): CompiledAgent {
  const m = member({ id, model: { turns: [{ tool_calls: [{ id: `${id}-c1`, name: 'arithmetic', arguments: { a, b, op: 'add' } }] }, { content: `${id}={{last_tool_result}}` }] } });
  m.tools = { ...m.tools, refs: [builtinTool('arithmetic', { approval_required: true })] };
  // Waiting on a person may outlast the builders' 60 s run timeout (recording, replay, upgrade).
  m.runtime = { ...m.runtime, timeout_seconds: 3600 };
  return { ...m, ...extra };
}

function react(spec: Parameters<typeof reactAgent>[0]): CompiledAgent {
  return reactAgent(spec);
}

function single(a: CompiledAgent, ...others: CompiledAgent[]): CompiledBundle {
  return bundle(a.agent_id, [a, ...others]);
}

const PII: CompiledGuardrail = { ref: 'pii-scan', version: '1.0.0', status: 'active', result_type: 'transform', provider: { type: 'builtin', name: 'pii-regex' }, on_fail: 'apply' };

export const SCENARIOS: Scenario[] = [
  {
    // Patch `audit-events-in-chunks` (src/workflows/react/governance.ts flushAudit): with a chunk of
    // one event, the first approval's audit event goes to the store before the second model turn.
    name: 'react-audit-chunks',
    waitsAt: 'second tool approval of an audited run (the first approval\'s audit event already moved to the store on the new code)',
    patches: ['audit-events-in-chunks'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = react({
        agent_id: 'c-audit',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 'b1', name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] }, { tool_calls: [{ id: 'b2', name: 'arithmetic', arguments: { a: 4, b: 5, op: 'add' } }] }, { content: 'sums {{last_tool_result}}' }] }),
        tools: [builtinTool('arithmetic', { approval_required: true })],
      });
      a.policies = { ...a.policies, audit_level: 'standard', audit_trail: true };
      return single(a);
    },
    input: 'add twice',
    options: { scale: { audit_events_chunk: 1 } },
    answerBeforeReady: true,
    ready: (t) => (t[0]?.status?.pending_approvals ?? []).some((p) => p.call_id === 'b2'),
    expected: 'sums 9',
  },
  {
    name: 'react-tool-approval',
    waitsAt: 'tool approval (one call waits, a concurrent call has run)',
    patches: ['tree-pending-decisions', 'approval-timer-summary'],
    workflowType: 'agfReactWorkflow',
    bundle: () =>
      single(
        react({
          agent_id: 'c-approve',
          model: scriptedModel({ turns: [{ tool_calls: [{ id: 'a1', name: 'arithmetic', arguments: { a: 6, b: 7, op: 'mul' } }, { id: 'a2', name: 'echo', arguments: { text: 'hi' } }] }, { content: 'product {{last_tool_result}}' }] }),
          tools: [builtinTool('arithmetic', { approval_required: true }), builtinTool('echo')],
        }),
      ),
    input: 'multiply',
    ready: (t) => pending(t) === 1,
    expected: 'product hi',
  },
  {
    // Patch `validated-signal-payloads` (src/workflows/shell/payloads.ts signalPayload): an approve
    // signal whose payload has a field the contract does not know. Recorded before the patch, the
    // run approves s1 with it and waits on s2; after it, the signal only adds a run warning and s1
    // still waits. The generic driver then approves what is left: both end with the same answer.
    name: 'react-signal-unknown-field',
    waitsAt: 'tool approval after an approve signal with an unknown field (s2 waits before the patch, s1 after)',
    patches: ['validated-signal-payloads'],
    workflowType: 'agfReactWorkflow',
    bundle: () =>
      single(
        react({
          agent_id: 'c-signal-field',
          model: scriptedModel({
            turns: [
              { tool_calls: [{ id: 's1', name: 'arithmetic', arguments: { a: 2, b: 3, op: 'add' } }] },
              { tool_calls: [{ id: 's2', name: 'arithmetic', arguments: { a: 4, b: 5, op: 'add' } }] },
              { content: 'sums {{last_tool_result}}' },
            ],
          }),
          tools: [builtinTool('arithmetic', { approval_required: true })],
        }),
      ),
    input: 'add twice',
    drive: async (client, rootId) => {
      const h = client.workflow.getHandle(rootId);
      const waiting = async (): Promise<boolean> => ((await h.query<{ pending_approvals: { call_id: string }[] }>(WIRE.status).catch(() => undefined))?.pending_approvals ?? []).some((p) => p.call_id === 's1');
      await waitFor(waiting, 's1 waiting for approval');
      await h.signal('approve', { call_id: 's1', note: 'looks fine' });
    },
    ready: (t) =>
      pending(t) === 1 &&
      ((t[0]?.status?.pending_approvals ?? []).some((p) => p.call_id === 's2') || (t[0]?.status?.warnings ?? []).some((w) => w.startsWith('approve signal ignored: '))),
    expected: 'sums 9',
  },
  {
    name: 'react-corrected-args',
    waitsAt: 'tool approval on an agent with tool_input guardrails (approved with corrected arguments)',
    patches: ['guardrails', 'guard-corrected-args'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = react({
        agent_id: 'c-correct',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 'k1', name: 'echo', arguments: { text: 'mail bob@example.com' } }] }, { content: 'said {{last_tool_result}}' }] }),
        tools: [builtinTool('echo', { approval_required: true })],
      });
      a.guardrails = { ...a.guardrails, tool_input: [PII] };
      return single(a);
    },
    input: 'say it',
    ready: (t) => pending(t) === 1,
    async resume(client, rootId) {
      await client.workflow.getHandle(rootId).executeUpdate(WIRE.approve, { args: [{ call_id: 'k1', args: { text: 'call carol@example.com' }, by: 'compat-guard' }] });
    },
    expected: 'said call [EMAIL]',
  },
  {
    name: 'react-delegation-approval',
    waitsAt: 'delegation approval (policies.require_human_approval)',
    patches: ['delegate-tool', 'delegate-approval'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const helper = react({ agent_id: 'c-helper', model: scriptedModel({ turns: [{ content: 'helped {{input}}' }] }) });
      const lead = react({
        agent_id: 'c-lead',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 'd1', name: 'delegate_to_agent', arguments: { agent_id: 'c-helper', input: 'task' } }] }, { content: 'lead got {{last_tool_result}}' }] }),
        require_human_approval: true,
      });
      lead.orchestration = { ...lead.orchestration, can_delegate: true, allowed_delegates: ['c-helper'] };
      return single(lead, helper);
    },
    input: 'go',
    ready: (t) => pending(t) === 1,
    expected: 'lead got helped task',
  },
  {
    name: 'react-human-queue',
    waitsAt: 'a human queue (the model escalated: on model_decision)',
    patches: ['guardrails'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      // max_turns: on versions without the escalate tool the model's call is refused and the run ends.
      const a = react({ agent_id: 'c-escalate', model: scriptedModel({ turns: [{ tool_calls: [{ id: 'h1', name: 'escalate_to_human', arguments: { reason: 'needs a person' } }] }] }), runtime: { max_turns: 3 } });
      a.orchestration = { ...a.orchestration, escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'desk' } }] };
      return single(a);
    },
    input: 'help',
    ready: (t) => t[0]?.status?.state === 'waiting_for_human',
    expected: 'operator answer',
  },
  {
    name: 'react-approval-timeout-escalated',
    waitsAt: 'an approval whose timeout escalated it to a human queue',
    patches: ['approval-timeout-escalate'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = react({
        agent_id: 'c-timeout',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 't1', name: 'arithmetic', arguments: { a: 2, b: 2, op: 'add' } }] }, { content: 'sum {{last_tool_result}}' }] }),
        tools: [builtinTool('arithmetic', { approval_required: true })],
      });
      a.orchestration = { ...a.orchestration, escalation: [{ on: 'timeout', target: { type: 'human_queue', id: 'approvals-desk' } }] };
      return single(a);
    },
    input: 'add',
    options: { approval_timeout_seconds: 1, on_approval_timeout: 'escalate' },
    ready: (t) => (t[0]?.status?.warnings ?? []).some((w) => /escalated/.test(w)),
    expected: 'sum 4',
  },
  {
    name: 'react-fallback-then-approval',
    waitsAt: 'tool approval after the primary model failed over to runtime.fallback_model',
    patches: ['model-failure-fallback'],
    workflowType: 'agfReactWorkflow',
    bundle: () =>
      single(
        react({
          agent_id: 'c-fallback',
          model: scriptedModel({ turns: [{ error: { status: 503, message: 'down' } }] }, 'primary'),
          fallback_model: scriptedModel({ turns: [{ tool_calls: [{ id: 'f1', name: 'arithmetic', arguments: { a: 1, b: 2, op: 'add' } }] }, { content: 'fallback sum {{last_tool_result}}' }] }, 'backup'),
          tools: [builtinTool('arithmetic', { approval_required: true })],
          runtime: { retry_policy: { max_attempts: 1, backoff_seconds: 1 } },
        }),
      ),
    input: 'add',
    ready: (t) => pending(t) === 1,
    expected: 'fallback sum 3',
  },
  {
    name: 'react-paused',
    waitsAt: 'pause (signalled with the start, before the first model turn)',
    patches: [],
    workflowType: 'agfReactWorkflow',
    bundle: () => single(react({ agent_id: 'c-paused', model: scriptedModel({ turns: [{ content: 'resumed and answered' }] }) })),
    input: 'x',
    startPaused: true,
    ready: (t) => t[0]?.status?.state === 'paused',
    expected: 'resumed and answered',
  },
  {
    name: 'react-deadline-timer',
    waitsAt: 'tool approval while the run timeout (runtime.timeout_seconds) timer runs',
    patches: ['wait-timer-summary'],
    workflowType: 'agfReactWorkflow',
    bundle: () =>
      single(
        react({
          agent_id: 'c-deadline',
          model: scriptedModel({ turns: [{ tool_calls: [{ id: 'w1', name: 'arithmetic', arguments: { a: 5, b: 5, op: 'add' } }] }, { content: 'in time {{last_tool_result}}' }] }),
          tools: [builtinTool('arithmetic', { approval_required: true })],
          runtime: { timeout_seconds: 3600 },
        }),
      ),
    input: 'x',
    ready: (t) => pending(t) === 1,
    expected: 'in time 10',
  },
  {
    // Patch memory-react (src/workflows/react/memory.ts): recorded before it, the run neither reads
    // nor writes memory; after it, it reads at the start and its writeback waits for approval at the end.
    name: 'react-memory-mid-approval',
    waitsAt: 'tool approval in a run whose agent reads and writes back a memory collection (writeback approval_required)',
    patches: ['memory-react'],
    workflowType: 'agfReactWorkflow',
    bundle: () => {
      const a = react({
        agent_id: 'c-memory',
        model: scriptedModel({ turns: [{ tool_calls: [{ id: 'm1', name: 'arithmetic', arguments: { a: 3, b: 4, op: 'add' } }] }, { content: 'remembered {{last_tool_result}}' }] }),
        tools: [builtinTool('arithmetic', { approval_required: true })],
      });
      const prefs: CompiledCollection = {
        collection_id: 'prefs', version: '1.0.0', status: 'active', scope: 'project',
        backend: { type: 'memory', namespace: 'prefs/{actorId}' },
        writeback: { enabled: true, strategy: 'exchange', approval_required: true },
      };
      a.memory = { mode: 'project', read_collections: [prefs], write_collections: [prefs] };
      a.runtime = { ...a.runtime, timeout_seconds: 3600 };
      return single(a);
    },
    input: 'add and remember',
    options: { actor_id: 'ada' },
    ready: (t) => pending(t) === 1,
    expected: 'remembered 7',
  },
  {
    name: 'react-before-continue-as-new',
    waitsAt: 'tool approval in a run that continues-as-new after every turn (paused while the call runs)',
    patches: ['pause-before-continue-as-new'],
    workflowType: 'agfReactWorkflow',
    bundle: () =>
      single(
        react({
          agent_id: 'c-can',
          model: scriptedModel({ turns: [{ tool_calls: [{ id: 'n1', name: 'sleep', arguments: { ms: 1500 } }] }, { content: 'carried {{last_tool_result}}' }] }),
          tools: [builtinTool('sleep', { approval_required: true })],
        }),
      ),
    input: 'x',
    carried: { continue_as_new_every: 1 },
    ready: (t) => pending(t) === 1,
    // Approve, pause while the call runs: the turn ends paused at the continue-as-new point; then resume.
    async resume(client, rootId) {
      const h = client.workflow.getHandle(rootId);
      await h.executeUpdate(WIRE.approve, { args: [{ call_id: 'n1', by: 'compat-guard' }] });
      await waitFor(async () => ((await h.describe()).raw.pendingActivities ?? []).some((a) => a.activityType?.name === 'runTool' && Number(a.state) === 2 /* STARTED */), 'the approved call to start');
      await h.signal(WIRE.pause);
      await waitForTree(client, rootId, (t) => runToolDone(t[0]) || !t[0]?.open || t[0]?.history.events?.some((e) => e.workflowExecutionContinuedAsNewEventAttributes) === true, 'the paused call to finish');
      // Versions before patch pause-before-continue-as-new let the pause lapse and finished on their own.
      if ((await h.describe()).status.name === 'RUNNING') await h.signal(WIRE.resume);
    },
    expected: 'carried slept 1500 ms',
  },
  {
    name: 'sequential-member-approval',
    waitsAt: 'a 3-stage agf.sequential pipeline whose second member waits for approval',
    patches: ['tree-pending-decisions'],
    workflowType: 'agfSequentialWorkflow',
    bundle: () =>
      bundle('c-pipeline', [
        member({ id: 'c-pipeline', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'stage1' }, { agent: 'charge' }, { agent: 'stage3' }], output_from: 'stage3' } }, local_agents: locals('stage1', 'charge', 'stage3') }),
        member({ id: 'stage1', model: answers('stage one done') }),
        approvingMember('charge', 40, 2),
        member({ id: 'stage3', model: byInput([{ contains: 'charge=42', reply: { content: 'pipeline saw 42' } }], { content: 'stage3 saw no charge' }) }),
      ]),
    input: 'go',
    ready: (t) => pending(t) === 1,
    expected: 'pipeline saw 42',
  },
  {
    name: 'parallel-mid-fan-out',
    waitsAt: 'mid-fan-out: agf.parallel with one member done and two waiting for approval',
    patches: ['tree-pending-decisions'],
    workflowType: 'agfParallelWorkflow',
    bundle: () =>
      bundle('c-fan', [
        member({ id: 'c-fan', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'quick' }, { agent: 'slow1' }, { agent: 'slow2' }], output_from: 'merge' } }, local_agents: locals('quick', 'slow1', 'slow2') }),
        member({ id: 'quick', model: answers('quick done') }),
        approvingMember('slow1', 1, 1),
        approvingMember('slow2', 2, 2),
      ]),
    input: 'go',
    ready: (t) => pending(t) === 2 && t.some((m) => m.workflowId.endsWith('quick') && !m.open),
    expected: { quick: 'quick done', slow1: 'slow1=2', slow2: 'slow2=4' },
  },
  {
    name: 'loop-mid-loop',
    waitsAt: 'mid-loop: agf.loop in its second iteration, its member waiting for approval',
    patches: [],
    workflowType: 'agfLoopWorkflow',
    bundle: () =>
      bundle('c-loop', [
        member({ id: 'c-loop', policy: { id: 'agf.loop', config: { steps: [{ agent: 'looper' }], max_iterations: 3, output_from: 'looper' } }, local_agents: locals('looper') }),
        approvingMember('looper', 3, 4),
      ]),
    input: 'go',
    ready: (t) => pending(t, (id) => id.includes('/iter-2-')) === 1,
    answerBeforeReady: true,
    expected: 'looper=7',
  },
  {
    name: 'batch-mid-shard',
    waitsAt: 'mid-batch: agf.batch sharded (2 items a shard), the first shard\'s items waiting for approval',
    patches: [],
    workflowType: 'agfBatchWorkflow',
    bundle: () =>
      bundle('c-batch', [
        member({ id: 'c-batch', policy: { id: 'agf.batch', config: { agent: 'item-worker', input_mapping: { item: 'parent.input.items.[].value' }, max_batch_count: 10, max_concurrency: 4 } }, local_agents: locals('item-worker') }),
        approvingMember('item-worker', 1, 1),
      ]),
    input: { items: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] },
    options: { scale: { batch_shard_size: 2 } },
    ready: (t) => pending(t, (id) => id.includes('/shard-0/')) === 2,
    expected: ['item-worker=2', 'item-worker=2', 'item-worker=2'],
  },
  {
    name: 'graph-cycle-mid-node',
    waitsAt: 'mid-graph: a node of a graph with a back-edge waits for approval (the graph waits on its execution_timeout timer)',
    patches: ['graph-back-edges', 'node-timeout-execution', 'wait-timer-summary'],
    workflowType: 'graphWorkflow',
    bundle: () => {
      const pattern: GraphPattern = {
        type: 'graph', execution_timeout: 600, node_timeout: 300, reset_on_revisit: false,
        nodes: [{ id: 'writer', agent_ref: 'g-writer' }, { id: 'reviewer', agent_ref: 'g-reviewer' }],
        edges: [
          { from: '$self', to: 'writer' },
          { from: 'writer', to: 'reviewer' },
          { from: 'reviewer', to: 'writer', condition: "result_contains('revise')" },
        ],
      };
      return bundle('c-graph', [
        member({ id: 'c-graph', model: answers('start'), pattern }),
        approvingMember('g-writer', 10, 5),
        member({ id: 'g-reviewer', model: answers('looks fine') }),
      ]);
    },
    input: 'write',
    ready: (t) => pending(t) === 1,
    expected: 'looks fine',
  },
  {
    name: 'graph-stall',
    waitsAt: 'mid-graph: the first node of a graph that will stall (a join inside a cycle) waits for approval',
    patches: ['graph-back-edges', 'graph-stall-fails', 'node-timeout-execution'],
    workflowType: 'graphWorkflow',
    bundle: () => {
      // b joins a; a's source s is fed back from b (b -> s closes the cycle s -> a -> b -> s).
      const pattern: GraphPattern = {
        type: 'graph', execution_timeout: 600, node_timeout: 300, reset_on_revisit: false,
        nodes: [{ id: 's', agent_ref: 'st-s' }, { id: 'a', agent_ref: 'st-a' }, { id: 'b', agent_ref: 'st-b' }],
        edges: [
          { from: '$self', to: 's' }, { from: '$self', to: 'b' }, { from: 's', to: 'a' }, { from: 'a', to: 'b' },
          { from: 'b', to: 's', condition: "result_contains('loop')" },
        ],
      };
      return bundle('c-stall', [member({ id: 'c-stall', model: answers('start'), pattern }), approvingMember('st-s', 1, 2), member({ id: 'st-a', model: answers('A') }), member({ id: 'st-b', model: answers('B') })]);
    },
    input: 'go',
    ready: (t) => pending(t) === 1,
    expectedError: /graph stalled: node\(s\) 'a', 'b'/,
  },
  {
    name: 'conditional-route-approval',
    waitsAt: 'agf.conditional: the routed member waits for approval',
    patches: [],
    workflowType: 'agfConditionalWorkflow',
    bundle: () =>
      bundle('c-router', [
        member({ id: 'c-router', policy: { id: 'agf.conditional', config: { routes: [{ when: { args_match: { 'parent.input.kind': 'sum' } }, agent: 'summer' }], default_agent: 'fallback' } }, local_agents: locals('summer', 'fallback') }),
        approvingMember('summer', 8, 9),
        member({ id: 'fallback', model: answers('fell back') }),
      ]),
    input: { kind: 'sum' },
    ready: (t) => pending(t) === 1,
    expected: 'summer=17',
  },
  {
    name: 'parallel-transform-fails',
    waitsAt: 'agf.parallel whose output_from custom_transform will fail, a member waiting for approval',
    patches: ['transform-failure-status'],
    workflowType: 'agfParallelWorkflow',
    bundle: () =>
      bundle('c-transform', [
        member({ id: 'c-transform', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'tf-a' }, { agent: 'tf-b' }], output_from: { custom_transform: 'compat.no_such_transform' } } }, local_agents: locals('tf-a', 'tf-b') }),
        approvingMember('tf-a', 1, 1),
        member({ id: 'tf-b', model: answers('b done') }),
      ]),
    input: 'go',
    ready: (t) => pending(t) === 1,
    expectedError: /compat\.no_such_transform/,
  },
  {
    name: 'swarm-member-approval',
    waitsAt: 'swarm: the agent handed off to waits for approval',
    patches: [],
    workflowType: 'swarmWorkflow',
    bundle: () => {
      const pattern: SwarmPattern = {
        type: 'swarm', max_handoffs: 5, max_iterations: 5, execution_timeout: 600, node_timeout: 300,
        repetitive_handoff_detection_window: 0, repetitive_handoff_min_unique_agents: 0, agents: [{ ref: 'sw-worker' }],
      };
      const lead = member({ id: 'c-swarm', pattern });
      lead.runtime.model.scripted = { turns: [handoff('sw-worker', 'add the numbers')] };
      return bundle('c-swarm', [lead, approvingMember('sw-worker', 30, 12)]);
    },
    input: 'go',
    ready: (t) => pending(t) === 1,
    expected: 'sw-worker=42',
  },
  {
    name: 'task-dag-mid-dag',
    waitsAt: 'task DAG: the first task waits for approval, its dependent not started',
    patches: [],
    workflowType: 'taskDagWorkflow',
    bundle: () => {
      const pattern: WorkflowPattern = {
        type: 'workflow', max_workers: 2, retry_failed_tasks: false,
        tasks: [
          { task_id: 'extract', agent_ref: 'dag-extract', description: 'Do extract', priority: 1, dependencies: [] },
          { task_id: 'report', agent_ref: 'dag-report', description: 'Do report', priority: 0, dependencies: ['extract'] },
        ],
      };
      return bundle('c-dag', [member({ id: 'c-dag', pattern }), approvingMember('dag-extract', 2, 3), member({ id: 'dag-report', model: byInput([{ contains: 'dag-extract=5', reply: { content: 'report on 5' } }], { content: 'report saw nothing' }) })]);
    },
    input: 'go',
    ready: (t) => pending(t) === 1,
    expected: { extract: 'dag-extract=5', report: 'report on 5' },
  },
  {
    name: 'steps-by-alias-approval',
    waitsAt: 'steps: a step whose ByName alias maps to another agent id waits for approval',
    patches: ['steps-by-alias'],
    workflowType: 'stepsWorkflow',
    bundle: () =>
      bundle('c-steps', [
        member({ id: 'c-steps', local_agents: [{ alias: 'drafter', agent_ref: 'steps-writer' }, { alias: 'checker', agent_ref: 'steps-checker' }], pattern: { type: 'steps', steps: [
          { name: 'draft', agent: { ByName: 'drafter' }, prompt_template: 'Draft: {{input}}' },
          { name: 'check', agent: { ByName: 'checker' }, prompt_template: 'Check: {{input}}' },
        ] } }),
        approvingMember('steps-writer', 4, 4),
        member({ id: 'steps-checker', model: byInput([{ contains: 'Check: steps-writer=8', reply: { content: 'checked 8' } }], { content: 'checker saw nothing' }) }),
      ]),
    input: 'memo',
    ready: (t) => pending(t) === 1,
    expected: 'checked 8',
  },
  {
    name: 'batch-shard-suggested-continue-as-new',
    waitsAt: "none: an agf.batch shard continues-as-new on Temporal's own suggestion (server limit 40 events)",
    patches: ['batch-shard-continue-as-new'],
    workflowType: 'agfBatchWorkflow',
    server: { 'limit.historyCount.suggestContinueAsNew': 40 },
    bundle: () =>
      bundle('c-batch-can', [
        member({ id: 'c-batch-can', policy: { id: 'agf.batch', config: { agent: 'can-item', input_mapping: { item: 'parent.input.items.[].value' }, max_batch_count: 100, max_concurrency: 2 } }, local_agents: locals('can-item') }),
        member({ id: 'can-item', model: answers('item done') }),
      ]),
    input: { items: Array.from({ length: 24 }, (_, i) => ({ value: `v${i}` })) },
    options: { scale: { batch_shard_size: 12 } },
    ready: (t) => !t[0]?.open,
    expected: Array.from({ length: 24 }, () => 'item done'),
  },
  {
    name: 'batch-inline-members',
    waitsAt: 'mid-batch: plain single-turn members (inline on versions with patch inline-single-turn-members), the first model turn running',
    patches: ['inline-single-turn-members'],
    workflowType: 'agfBatchWorkflow',
    bundle: () => {
      const m = member({ id: 'plain-item', model: answers('item done', 1500) });
      // No run timeout: a plain model call is what may run inline instead of as a child workflow.
      delete (m.runtime as { timeout_seconds?: number }).timeout_seconds;
      return bundle('c-batch-inline', [
        member({ id: 'c-batch-inline', policy: { id: 'agf.batch', config: { agent: 'plain-item', input_mapping: { item: 'parent.input.items.[].value' }, max_batch_count: 10, max_concurrency: 1 } }, local_agents: locals('plain-item') }),
        m,
      ]);
    },
    input: { items: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] },
    ready: (t) => (t[0]?.history.events ?? []).some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn' || e.startChildWorkflowExecutionInitiatedEventAttributes),
    expected: ['item done', 'item done', 'item done'],
  },
  {
    name: 'batch-inline-members-lean',
    waitsAt: 'mid-batch: six plain single-turn members, three at a time, each answer naming its item (the first model turns running; no await between a turn and its outcome on patch lean-inline-members)',
    patches: ['lean-inline-members'],
    workflowType: 'agfBatchWorkflow',
    bundle: () => {
      const m = member({ id: 'lean-item', model: answers('did {{input.item}}', 1500) });
      // No run timeout: a plain model call is what may run inline instead of as a child workflow.
      delete (m.runtime as { timeout_seconds?: number }).timeout_seconds;
      return bundle('c-batch-lean', [
        member({ id: 'c-batch-lean', policy: { id: 'agf.batch', config: { agent: 'lean-item', input_mapping: { item: 'parent.input.items.[].value' }, max_batch_count: 10, max_concurrency: 3 } }, local_agents: locals('lean-item') }),
        m,
      ]);
    },
    input: { items: ['a', 'b', 'c', 'd', 'e', 'f'].map((value) => ({ value })) },
    ready: (t) => (t[0]?.history.events ?? []).some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn'),
    // Each answer in its item's place: a turn's result reaches the member that asked for it.
    expected: ['did a', 'did b', 'did c', 'did d', 'did e', 'did f'],
  },
  ...strategiesScenarios(),
  ...evidenceScenarios(),
  ...phaseScenarios(),
  ...llmScenarios(),
  ...execScenarios(),
  ...graphScenarios(),
  ...contractScenarios(),
  ...sessionScenarios(),
  ...memoryScenarios(),
  ...artifactScenarios(),
  ...ephemeralScenarios(),
  ...startViewScenarios(),
];

/** The root's last scheduled runTool activity has completed (the approved call ran). */
function runToolDone(root: Member | undefined): boolean {
  const events = root?.history.events ?? [];
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool').map((e) => String(e.eventId));
  const last = scheduled[scheduled.length - 1];
  return last !== undefined && events.some((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === last);
}
