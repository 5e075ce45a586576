/**
 * Seed 003 "Correction … replace it with a different one", the remaining ways in: the tree-wide
 * `decide` update carries `tool` (checked against the holding agent's tools and the replacement's
 * schema), and a tool swapped in at approval passes the same policy gate as a call the model made
 * (policies.allowed_connectors, policies.data_residency) — refused by the update, and told to the
 * model when the fire-and-forget signal carried it. Proven on a real dev server, from the history.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { CompiledAgent, CompiledGuardrail, JsonObject } from '../../src/compiled/types';
import type { ApproveArgs, DecideArgs } from '../../src/shared/contract';
import { agent, builtinTool, bundleOf, scriptedModel, storeTestBundle } from './builders';
import { Harness, startHarness, waitForStatus } from './harness';
import { historyEvents } from '../helpers/history';
import { agent as member, bundle as treeBundle, locals } from '../orchestration/builders';
import { workflowTypeFor } from '../../src/shared/dispatch';
import { storeBundle } from '../../src/activities/blob-store';
import { testStore } from './builders';

jest.setTimeout(120000);

let H: Harness;
beforeAll(async () => {
  H = await startHarness('exec-replace');
});
afterAll(async () => H.close());

const decode = (p: { data?: Uint8Array | null } | undefined): Record<string, unknown> => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

/** An agent whose `arithmetic` call r1 waits for approval; `mailer` uses connector smtp (not allowed), `us_echo` is in us-east-1 (outside eu). */
function replaceAgent(id: string): CompiledAgent {
  const a = agent({
    agent_id: id,
    model: scriptedModel({
      turns: [{ tool_calls: [{ id: 'r1', name: 'arithmetic', arguments: { a: 1, b: 2, op: 'add', _outputPath: '$.state.result' } }] }, { content: 'model saw: {{message}} / {{last_tool_result}}' }],
    }),
    tools: [
      builtinTool('arithmetic', { approval_required: true }),
      builtinTool('echo'),
      builtinTool('echo', { tool_id: 'mailer', connector: 'smtp' }),
      builtinTool('echo', { tool_id: 'us_echo', region: 'us-east-1' }),
    ],
    runtime: { execution_loop: 'dependencies' },
  });
  a.policies = { ...a.policies, allowed_connectors: ['crm'], data_residency: 'eu' };
  return a;
}

async function start(id: string): Promise<WorkflowHandle> {
  const h = await H.start({ bundle: await storeTestBundle(bundleOf(replaceAgent(id))), agent_id: id, input: 'go' });
  await waitForStatus(h, (s) => s.pending_approvals.length === 1, 60000);
  return h;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(WorkflowUpdateFailedError);
  return String((e as WorkflowUpdateFailedError).cause?.message);
}

async function toolRuns(h: WorkflowHandle): Promise<unknown[][]> {
  return (await historyEvents(h))
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((s) => s?.activityType?.name === 'runTool')
    .map((s) => decode(s!.input?.payloads?.[0]))
    .map((r) => [r.call_id, r.tool, r.args]);
}

test('approveCall refuses a replacement outside allowed_connectors or data_residency; the signal path tells the model and runs nothing', async () => {
  const h = await start('gate-update');
  expect(await refusal(h.executeUpdate('approveCall', { args: [{ call_id: 'r1', tool: 'mailer', args: { text: 'x' } } satisfies ApproveArgs] }))).toBe(
    "cannot replace r1 with 'mailer': tool mailer uses connector 'smtp', which policies.allowed_connectors does not list (allowed: crm); the call was refused before it ran",
  );
  expect(await refusal(h.executeUpdate('approveCall', { args: [{ call_id: 'r1', tool: 'us_echo', args: { text: 'x' } } satisfies ApproveArgs] }))).toBe(
    "cannot replace r1 with 'us_echo': tool us_echo is in region 'us-east-1', outside policies.data_residency 'eu'; the call was refused before it ran",
  );
  // the fire-and-forget signal cannot be refused: the workflow's own gate refuses it and the model reads why
  await h.signal('approve', { call_id: 'r1', tool: 'mailer', args: { text: 'x' }, by: 'ops' } satisfies ApproveArgs);
  const res = await h.result();
  expect(res.output).toMatch(/^model saw: .* \/ error: replacement by mailer refused: tool mailer uses connector 'smtp', which policies\.allowed_connectors does not list/);
  expect(res.state).toBeUndefined();
  expect(await toolRuns(h)).toEqual([]);
});

test('decide on the run replaces its pending call: unknown tools, delegations-only and bad arguments refused first', async () => {
  const h = await start('decide-replace');
  const decide = (a: DecideArgs) => h.executeUpdate('decide', { args: [a] });
  expect(await refusal(decide({ ref: 'r1', decision: 'approve', tool: '  ' }))).toMatch(/"tool" must name one of the holding agent's tools/);
  expect(await refusal(decide({ ref: 'r1', decision: 'approve', tool: 'rm_rf' }))).toBe("cannot replace r1 with 'rm_rf': not a tool of decide-replace; use one of arithmetic, echo, mailer, us_echo");
  expect(await refusal(decide({ ref: 'r1', decision: 'approve', tool: 'echo', args: { words: 1 } as JsonObject }))).toMatch(/^replacement echo refused for r1: invalid arguments for tool echo/);
  const ok = await decide({ ref: 'r1', decision: 'approve', tool: 'echo', args: { text: 'swapped' }, by: 'ops' });
  expect(ok).toBe('approved r1 replaced by echo');
  const res = await h.result();
  expect(res.state).toEqual({ result: 'swapped' });
  expect(res.output).toBe('model saw: ops replaced your call r1 (arithmetic {"a":1,"b":2,"op":"add"}) with echo {"text":"swapped"}; the result of r1 is the result of echo / swapped');
  expect(await toolRuns(h)).toEqual([['r1', 'echo', { text: 'swapped' }]]);
});

test('a replacement sent with the approve signal passes the tool_input guardrails like any call: it runs with the redacted arguments', async () => {
  const a = replaceAgent('signal-guarded');
  const pii: CompiledGuardrail = { ref: 'pii-scan', version: '1.0.0', status: 'active', result_type: 'transform', provider: { type: 'builtin', name: 'pii-regex' }, on_fail: 'apply' };
  a.guardrails = { ...a.guardrails, tool_input: [pii] };
  const h = await H.start({ bundle: await storeTestBundle(bundleOf(a)), agent_id: a.agent_id, input: 'go' });
  await waitForStatus(h, (s) => s.pending_approvals.length === 1, 60000);
  await h.signal('approve', { call_id: 'r1', tool: 'echo', args: { text: 'mail bob@example.com' }, by: 'ops' } satisfies ApproveArgs);
  const res = await h.result();
  expect(await toolRuns(h)).toEqual([['r1', 'echo', { text: 'mail [EMAIL]' }]]);
  expect(res.state).toEqual({ result: 'mail [EMAIL]' });
  expect(res.warnings.join('\n')).toMatch(/call r1 \(arithmetic\) replaced by ops with echo/);
});

test('decide on the root of a tree replaces a call held by a member: checked against that member\'s tools, forwarded with the approve signal', async () => {
  const payer = replaceAgent('payer');
  const root = member({ id: 'pay-team', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'payer' }], output_from: 'merge' } }, local_agents: locals('payer') });
  const b = treeBundle('pay-team', [root, payer]);
  const h = await H.startType(workflowTypeFor(root)!, { bundle: await storeBundle(testStore(), b), agent_id: 'pay-team', input: 'go' });
  await waitForStatus(h, (s) => (s.pending_decisions ?? []).length === 1, 60000);
  const decide = (a: DecideArgs) => h.executeUpdate('decide', { args: [a] });
  expect(await refusal(decide({ ref: 'r1', decision: 'approve', tool: 'refund' }))).toMatch(/^cannot replace .*r1 with 'refund': not a tool of payer; use one of arithmetic, echo, mailer, us_echo$/);
  const ok = await decide({ ref: 'r1', decision: 'approve', tool: 'echo', args: { text: 'from the root' }, by: 'ops' });
  expect(ok).toMatch(/^approved r1 replaced by echo in /);
  const res = (await h.result()) as { output: Record<string, string> };
  expect(JSON.stringify(res.output)).toContain('from the root');
});
