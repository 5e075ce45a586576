/**
 * An operator without `loom`: the run-protocol table of docs/operating.md is enough to read a run's status and
 * approve or reject its pending calls with the official `temporal` CLI binary (the project-local
 * one the suite's dev server runs on). The commands below are that page's, word for word.
 */
import { execFile } from 'child_process';
import { promisify } from 'util';
import { resolveTemporalCli } from '../../src/platform/temporal-dev-server';
import type { AgentRunResult } from '../../src/shared/contract';
import { temporalAddress } from '../helpers/temporal';
import { storeTestBundle } from '../runtime/builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { Harness, startHarness, waitForStatus } from '../runtime/harness';

const run = promisify(execFile);
let H: Harness;
beforeAll(async () => {
  H = await startHarness('temporal-cli');
});
afterAll(async () => H?.close());

/** `temporal workflow …` against the suite's server; stdout as text. */
async function temporal(...args: string[]): Promise<string> {
  const { stdout } = await run(resolveTemporalCli({ install: false }), ['workflow', ...args, '--address', temporalAddress()], { timeout: 60_000 });
  return stdout;
}

test('query status, approve one call and reject another with `temporal workflow …` only', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'temporal-cli-agent',
    model: scripted({
      rules: [{ when: { last_message_contains: 'not today' }, reply: { content: 'sum {{tool_results.arithmetic}}; echo rejected' } }],
      turns: [{ tool_calls: [{ id: 'call_0_0', name: 'arithmetic', arguments: { a: 20, b: 22, op: 'add' } }, { id: 'call_0_1', name: 'echo', arguments: { text: 'x' } }] }],
    }),
    tools: [builtin('arithmetic', { approval_required: true }), builtin('echo', { approval_required: true })],
  });
  const h = await H.start({ bundle: await storeTestBundle(compiled), agent_id: 'temporal-cli-agent', input: 'go' });
  await waitForStatus(h, (s) => s.pending_approvals.length === 2);
  const ID = h.workflowId;

  const status = await temporal('query', '--workflow-id', ID, '--name', 'status');
  expect(status).toContain('call_0_0');
  expect(status).toContain('waiting_for_approval');

  const approved = await temporal('update', 'execute', '--workflow-id', ID, '--name', 'approveCall', '--input', '{"call_id":"call_0_0"}');
  expect(approved).toContain('approved call_0_0');
  const rejected = await temporal('update', 'execute', '--workflow-id', ID, '--name', 'rejectCall', '--input', '{"call_id":"call_0_1","reason":"not today"}');
  expect(rejected).toContain('rejected call_0_1');

  const res = (await h.result()) as AgentRunResult;
  expect(res.output).toBe('sum 42; echo rejected');
});

test('an update the run refuses comes back to the temporal CLI with the reason', async () => {
  const { bundle: compiled } = compileAgent({
    agent_id: 'temporal-cli-refused',
    model: scripted({ turns: [{ tool_calls: [{ id: 'c1', name: 'arithmetic', arguments: { a: 1, b: 1, op: 'add' } }] }, { content: 'done {{last_tool_result}}' }] }),
    tools: [builtin('arithmetic', { approval_required: true })],
  });
  const h = await H.start({ bundle: await storeTestBundle(compiled), agent_id: 'temporal-cli-refused', input: 'go' });
  await waitForStatus(h, (s) => s.pending_approvals.length === 1);
  const err = await temporal('update', 'execute', '--workflow-id', h.workflowId, '--name', 'approveCall', '--input', '{"call_id":"no-such-call"}').then(
    () => '',
    (e: { stderr?: string; stdout?: string }) => `${e.stderr ?? ''}${e.stdout ?? ''}`,
  );
  expect(err).toMatch(/no-such-call/);
  // The refused update changed nothing: the real call is still pending, then approved the same way.
  await temporal('update', 'execute', '--workflow-id', h.workflowId, '--name', 'approveCall', '--input', '{"call_id":"c1"}');
  expect(((await h.result()) as AgentRunResult).output).toBe('done 2');
});
