/**
 * The `decide` update on the root (issue 9), driven with the official `temporal` CLI binary only,
 * as the run-protocol table of docs/operating.md shows it: an operator with no `loom` answers approvals held by
 * members of a fan-out, the root's own call, and a human-queue escalation held two levels down,
 * each by the root's workflow id; a ref that names nothing (or two things) is refused with the
 * reason, and the answer is visible in the root's status when the update returns.
 */
import { execFile } from 'child_process';
import { promisify } from 'util';
import type { CompiledAgent, CompiledTool, JsonSchema } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { resolveTemporalCli } from '../../src/platform/temporal-dev-server';
import { temporalAddress } from '../helpers/temporal';
import { agent, bundle, locals } from '../orchestration/builders';
import { Harness, startHarness, waitFor } from '../orchestration/harness';

const run = promisify(execFile);
let h: Harness;
beforeAll(async () => { h = await startHarness('decide-cli'); });
afterAll(async () => { await h?.close(); });

/** `temporal workflow …` against the suite's server: stdout, or the refusal (stderr + stdout) when it exits non-zero. */
async function temporal(...args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run(resolveTemporalCli({ install: false }), ['workflow', ...args, '--address', temporalAddress()], { timeout: 90_000 });
    return { ok: true, out: stdout };
  } catch (e) {
    const x = e as { stderr?: string; stdout?: string };
    return { ok: false, out: `${x.stderr ?? ''}${x.stdout ?? ''}` };
  }
}
const decide = (id: string, payload: object) => temporal('update', 'execute', '--workflow-id', id, '--name', 'decide', '--input', JSON.stringify(payload));
async function status(id: string): Promise<RunStatus> {
  const r = await temporal('query', '--workflow-id', id, '--name', 'status', '--output', 'json');
  if (!r.ok) throw new Error(r.out);
  const parsed = JSON.parse(r.out) as { queryResult: RunStatus[] };
  return parsed.queryResult[0];
}

const SCHEMA: JsonSchema = { type: 'object', properties: { text: { type: 'string' }, amount: { type: 'number' } }, required: ['text'] };
const CHARGE: CompiledTool = {
  tool_id: 'charge', version: '1.0.0', status: 'active', description: 'charge', kind: 'builtin', input_schema: SCHEMA,
  approval_required: true, sensitive_fields: [], side_effects: true, builtin: { name: 'echo' },
};
function charger(id: string, callId: string): CompiledAgent {
  return {
    ...agent({ id, model: { turns: [{ tool_calls: [{ id: callId, name: 'charge', arguments: { text: `${id}-${callId}` } }] }, { content: `${id}: {{last_tool_result}}` }] } }),
    tools: { tool_choice: 'auto', refs: [CHARGE] },
  };
}

test('a fan-out with the same call id in both members: refused when ambiguous or unknown, then rejected and approved by PATH:CALL_ID at the root', async () => {
  const b = bundle('fan', [
    agent({ id: 'fan', policy: { id: 'agf.parallel', config: { agents: [{ agent: 'left' }, { agent: 'right' }], output_from: 'merge' } }, local_agents: locals('left', 'right') }),
    charger('left', 'c1'),
    charger('right', 'c1'),
  ]);
  const wf = await h.start(b, 'go');
  const ID = wf.workflowId;
  await waitFor(async () => ((await status(ID)).pending_decisions?.length === 2 ? true : undefined), 'two pending decisions at the root');

  const ambiguous = await decide(ID, { ref: 'c1', decision: 'approve' });
  expect(ambiguous.ok).toBe(false);
  expect(ambiguous.out).toContain('agent-1-left:c1');
  expect(ambiguous.out).toContain('agent-2-right:c1');
  const unknown = await decide(ID, { ref: 'nope', decision: 'approve' });
  expect(unknown.ok).toBe(false);
  expect(unknown.out).toContain("no pending approval 'nope'");
  const noReason = await decide(ID, { ref: 'agent-2-right:c1', decision: 'reject' });
  expect(noReason.ok).toBe(false);
  expect(noReason.out).toContain('reject needs a "reason"');
  const badArgs = await decide(ID, { ref: 'agent-1-left:c1', decision: 'approve', args: { amount: 3 } });
  expect(badArgs.ok).toBe(false);
  expect(badArgs.out).toContain('corrected arguments refused for c1');

  const rejected = await decide(ID, { ref: 'agent-2-right:c1', decision: 'reject', reason: 'not this card' });
  expect(rejected.out).toContain(`rejected c1 in ${ID}/agent-2-right`);
  // Visible in the root's status when the update returns: only the left call is still pending.
  expect((await status(ID)).pending_decisions?.map((d) => d.path.join('/'))).toEqual(['agent-1-left']);
  const approved = await decide(ID, { ref: 'agent-1-left:c1', decision: 'approve', args: { text: 'corrected' }, by: 'ops' });
  expect(approved.out).toContain(`approved c1 with corrected arguments in ${ID}/agent-1-left`);

  const res = (await wf.result()) as AgentRunResult;
  expect(JSON.stringify(res.output)).toContain('left: corrected');
  expect(JSON.stringify(res.output)).toContain('not this card');
});

test("a react root's own call and an escalation two levels down, each answered with decide on the root", async () => {
  const solo = await h.start(bundle('solo', [charger('solo', 's1')]), 'go');
  const waiting = await waitFor(async () => {
    const s = await status(solo.workflowId);
    return s.pending_decisions?.length === 1 ? s : undefined;
  }, 'the root call pending');
  // Counters count what ran: the call waiting for approval is pending, not made.
  expect(waiting.tool_calls_made).toBe(0);
  expect(waiting.pending_approvals.map((p) => p.call_id)).toEqual(['s1']);
  const own = await decide(solo.workflowId, { ref: 's1', decision: 'approve' });
  expect(own.out).toContain('approved s1');
  expect(own.out).not.toContain(' in ');
  expect(((await solo.result()) as AgentRunResult).output).toBe('solo: solo-s1');
  expect((await status(solo.workflowId)).tool_calls_made).toBe(1);

  const b = bundle('outer', [
    agent({ id: 'outer', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'middle' }], output_from: 'middle' } }, local_agents: locals('middle') }),
    agent({ id: 'middle', policy: { id: 'agf.sequential', config: { steps: [{ agent: 'desk' }], output_from: 'desk' } }, local_agents: locals('desk') }),
    agent({
      id: 'desk',
      model: { turns: [{ tool_calls: [{ id: 'h1', name: 'escalate_to_human', arguments: { reason: 'needs a person' } }] }] },
      escalation: [{ on: 'model_decision', target: { type: 'human_queue', id: 'ops' } }],
      max_turns: 3,
    }),
  ]);
  const wf = await h.start(b, 'go');
  await waitFor(async () => ((await status(wf.workflowId)).pending_decisions?.some((d) => d.kind === 'escalation') ? true : undefined), 'the escalation at the root');
  const wrongKind = await decide(wf.workflowId, { ref: 'ops', decision: 'approve' });
  expect(wrongKind.ok).toBe(false);
  expect(wrongKind.out).toContain("no pending approval 'ops'");
  const answered = await decide(wf.workflowId, { ref: 'step-1-middle/step-1-desk:ops', decision: 'respond', output: 'handled by a person' });
  expect(answered.out).toContain(`responded on 'ops' in ${wf.workflowId}/step-1-middle/step-1-desk`);
  expect(((await wf.result()) as AgentRunResult).output).toBe('handled by a person');
});
