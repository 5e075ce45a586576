/**
 * Nothing a client sends breaks a run. An agf.react run waiting on a human (a tool call held for
 * approval), a strategies run waiting for a route approval and a chat session each receive every signal, update and query of the run contract with each hostile payload
 * — none, `null`, wrong types, unknown fields, a 1 MB string, 10,000-deep nesting, an encoding no
 * converter reads, `binary/encrypted` on a worker without the key — sent with the official
 * `temporal` CLI. The 1 MB payloads go one at a time: a rejected update's answer carries its
 * request, and several 1 MB rejections in one workflow task exceed gRPC's 4 MB (decision 314). The
 * queries go one at a time too (decision 1013).
 * Every signal leaves a run warning naming it, every update is refused with the expected shape,
 * the streamedCalls query answers an error; no workflow task fails, the status query answers, the
 * run still waits, and the correct approval then completes it.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import type { Worker } from '@temporalio/worker';
import { resolveTemporalCli } from '../../src/platform/temporal-dev-server';
import { createActivities } from '../../src/activities';
import { loomWorkerDataConverter } from '../../src/codec/data-converter';
import { agfReactWorkflow } from '../../src/workflows/react';
import { PAYLOAD_SHAPES, SIGNALS, UPDATES, QUERIES } from '../../src/shared/contract';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { connectTestTemporal, createTestWorker, temporalAddress, type TestTemporal } from '../helpers/temporal';
import { storeTestBundle, testStore } from '../runtime/builders';
import { builtin, compileAgent, scripted } from '../helpers/definitions';
import { waitForStatus } from '../runtime/harness';
import { answers } from '../orchestration/builders';
import { scriptedTeam } from '../strategies/team';
import { SESSION_MESSAGE_SHAPE, SESSION_WORKFLOW_TYPE, type SessionInput } from '../../src/shared/session';

const exec = promisify(execFile);
let t: TestTemporal;
let worker: Worker;
let running: Promise<void>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-'));

beforeAll(async () => {
  t = await connectTestTemporal('hostile');
  // The production worker's data converter: the decoding guard, no codec key (binary/encrypted cannot be opened).
  worker = await createTestWorker(t, createActivities({ store: testStore() }), { dataConverter: loomWorkerDataConverter({}) });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `temporal workflow …` on the suite's server: exit code and output. */
async function temporal(args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await exec(resolveTemporalCli({ install: false }), ['workflow', ...args, '--address', temporalAddress()], { timeout: 60_000, maxBuffer: 8 << 20 });
    return { ok: true, out: `${stdout}${stderr}` };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

/** Run `fns` at most `n` at a time. */
async function pool<T>(fns: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = new Array(fns.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < fns.length) {
      const i = next++;
      out[i] = await fns[i]();
    }
  }));
  return out;
}

const big = path.join(dir, 'big.json');
fs.writeFileSync(big, JSON.stringify('x'.repeat(1 << 20)));
const nested = path.join(dir, 'nested.json');
fs.writeFileSync(nested, `${'{"a":'.repeat(10_000)}"leaf"${'}'.repeat(10_000)}`);

/** The hostile payloads as `temporal` CLI input flags. */
const PAYLOADS: { name: string; flags: string[] }[] = [
  { name: 'missing', flags: [] },
  { name: 'null', flags: ['--input', 'null'] },
  { name: 'wrong types', flags: ['--input', '{"call_id":7,"reason":false,"queue":1,"ref":[],"turn":"x","decisions":"no","call":3,"text":3}'] },
  // The pending call's own id with a field no payload has: refused whole, the call stays pending.
  { name: 'extra fields', flags: ['--input', '{"call_id":"c1","reason":"no","extra":1}'] },
  { name: '1 MB string', flags: ['--input-file', big] },
  { name: '10,000-deep nesting', flags: ['--input-file', nested] },
  { name: 'encoding binary/evil', flags: ['--input-meta', 'encoding=binary/evil', '--input', '"x"'] },
  { name: 'binary/encrypted without the key', flags: ['--input-meta', 'encoding=binary/encrypted', '--input-meta', 'encryption-key-id=absent', '--input', '"x"'] },
];

const SIGNAL_NAMES = [SIGNALS.approve, SIGNALS.reject, SIGNALS.respond, SIGNALS.descendantDecisions, SIGNALS.callStreamed];
const UPDATE_SHAPES: [string, string][] = [
  [UPDATES.approve, PAYLOAD_SHAPES.approve],
  [UPDATES.reject, PAYLOAD_SHAPES.reject],
  [UPDATES.respond, PAYLOAD_SHAPES.respond],
  [UPDATES.decide, PAYLOAD_SHAPES.decide],
];

type Sent = { kind: 'signal' | 'update' | 'query'; name: string; payload: string; ok: boolean; out: string };

/**
 * Every hostile payload on each of `signals`, `updates` (with their expected shapes) and `queries`
 * of the run `ID`, 4 sends at a time (the 1 MB ones and the queries alone, see above); checks what each send got:
 * a signal is taken (exit 0), an update is refused with its shape, a query answers an error.
 */
async function bombard(ID: string, signals: readonly string[], updates: readonly (readonly [string, string])[], queries: readonly string[]): Promise<Sent[]> {
  const sends: { alone: boolean; send: () => Promise<Sent> }[] = [];
  for (const p of PAYLOADS) {
    const big = p.name === '1 MB string';
    for (const name of signals) sends.push({ alone: big, send: async () => ({ kind: 'signal', name, payload: p.name, ...(await temporal(['signal', '--workflow-id', ID, '--name', name, ...p.flags])) }) });
    for (const [name] of updates) sends.push({ alone: big, send: async () => ({ kind: 'update', name, payload: p.name, ...(await temporal(['update', 'execute', '--workflow-id', ID, '--name', name, ...p.flags])) }) });
    // Queries go one at a time too: while a workflow task is in flight the server buffers a query
    // and refuses the next one ("consistent query buffer is full"), an answer about load, not about the payload.
    for (const name of queries) sends.push({ alone: true, send: async () => ({ kind: 'query', name, payload: p.name, ...(await temporal(['query', '--workflow-id', ID, '--name', name, ...p.flags])) }) });
  }
  const results = [...(await pool(sends.filter((x) => !x.alone).map((x) => x.send), 4)), ...(await pool(sends.filter((x) => x.alone).map((x) => x.send), 1))];
  expect(results).toHaveLength(PAYLOADS.length * (signals.length + updates.length + queries.length));
  for (const r of results) {
    const where = `${r.kind} ${r.name} with ${r.payload}: ${r.out.slice(0, 300)}`;
    expect([where, r.ok]).toEqual([where, r.kind === 'signal']);
    if (r.kind === 'update') {
      const shape = updates.find(([n]) => n === r.name)![1];
      expect([where, r.out.includes(`expected ${shape}`)]).toEqual([where, true]);
    }
    if (r.kind === 'query') expect([where, r.out.includes(`${r.name}: `)]).toEqual([where, true]);
  }
  return results;
}

/** The run's warnings name every signal, each for the payloads of every kind (none, null, both undecodable ones). */
function expectSignalWarnings(st: RunStatus, signals: readonly string[]): void {
  for (const n of signals) {
    const mine = st.warnings.filter((w) => w.startsWith(`${n} signal ignored: `));
    expect([n, mine.some((w) => w.includes("could not be decoded (encoding 'binary/evil'"))]).toEqual([n, true]);
    expect([n, mine.some((w) => w.includes("could not be decoded (encoding 'binary/encrypted'"))]).toEqual([n, true]);
    expect([n, mine.some((w) => w.includes('got null'))]).toEqual([n, true]);
    expect([n, mine.some((w) => w.includes('got no payload'))]).toEqual([n, true]);
  }
  expect(Math.max(0, ...st.warnings.map((w) => w.length))).toBeLessThanOrEqual(450);
}

test('an agf.react run waiting for approval takes every hostile payload on every handler, then completes on the correct approval', async () => {
  const { bundle } = compileAgent({
    agent_id: 'hostile-target',
    model: scripted({ turns: [{ tool_calls: [{ id: 'c1', name: 'arithmetic', arguments: { a: 1, b: 1, op: 'add' } }] }, { content: 'done {{last_tool_result}}' }] }),
    tools: [builtin('arithmetic', { approval_required: true })],
  });
  const h = await t.client.workflow.start(agfReactWorkflow, { taskQueue: t.taskQueue, workflowId: `hostile-${Date.now()}`, args: [{ bundle: await storeTestBundle(bundle), agent_id: 'hostile-target', input: 'go' }] });
  await waitForStatus(h, (s) => s.pending_approvals.length === 1);
  const ID = h.workflowId;

  await bombard(ID, SIGNAL_NAMES, UPDATE_SHAPES, [QUERIES.streamedCalls]);

  // The run answers, still waits on the same call, and says what it ignored.
  const st: RunStatus = await waitForStatus(h, (s) => SIGNAL_NAMES.every((n) => s.warnings.some((w) => w.startsWith(`${n} signal ignored: `))));
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals.map((p) => p.call_id)).toEqual(['c1']);
  expectSignalWarnings(st, SIGNAL_NAMES);
  const cli = await temporal(['query', '--workflow-id', ID, '--name', 'status']);
  expect(cli.ok).toBe(true);
  expect(cli.out).toContain('waiting_for_approval');

  const approved = await temporal(['update', 'execute', '--workflow-id', ID, '--name', UPDATES.approve, '--input', '{"call_id":"c1"}']);
  expect(approved.out).toContain('approved c1');
  expect(((await h.result()) as AgentRunResult).output).toBe('done 2');
  // 5 MB of signals make Temporal suggest continue-as-new: the pending approval and the warnings
  // were carried into the execution the approval completed (its history too large to fetch: 5.5 MB).
  expect((await h.describe()).runId).not.toBe(h.firstExecutionRunId);
  const last = (await h.fetchHistory()).events ?? [];
  expect(last.filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
});

test('a strategies run waiting for a route approval takes every hostile payload on every handler, then completes on the correct approval', async () => {
  const b = scriptedTeam('hostile-team', {
    Selection: { Type: 'keyword', Routes: [
      { Keyword: 'SHIP', Agent: 'Releaser', SourceAgents: ['Builder'], RequireHumanApproval: true },
      { Keyword: 'RELEASED', Agent: 'Releaser', SourceAgents: ['Releaser'] },
    ] },
  }, { Builder: answers('Built.\nSHIP'), Releaser: answers('v1.0\nRELEASED') }, 'hostile');
  const h = await t.client.workflow.start('strategiesWorkflow', { taskQueue: t.taskQueue, workflowId: `hostile-team-${Date.now()}`, args: [{ bundle: await storeTestBundle(b), agent_id: b.root, input: 'release' }] });
  await waitForStatus(h, (s) => s.pending_approvals[0]?.call_id === 'route-1');
  // The strategies workflow registers no callStreamed handler (a signal without one waits unread).
  const signals = SIGNAL_NAMES.filter((n) => n !== SIGNALS.callStreamed);
  await bombard(h.workflowId, signals, UPDATE_SHAPES, []);

  const st = await waitForStatus(h, (s) => signals.every((n) => s.warnings.some((w) => w.startsWith(`${n} signal ignored: `))));
  expect(st.state).toBe('waiting_for_approval');
  expect(st.pending_approvals.map((p) => p.call_id)).toEqual(['route-1']);
  expectSignalWarnings(st, signals);
  const approved = await temporal(['update', 'execute', '--workflow-id', h.workflowId, '--name', UPDATES.approve, '--input', '{"call_id":"route-1"}']);
  expect(approved.out).toContain('route route-1 approved');
  expect(((await h.result()) as AgentRunResult).output).toBe('v1.0\nRELEASED');
  expect(((await h.fetchHistory()).events ?? []).filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
});

test('a chat session takes every hostile payload on each of its updates, then answers the next message', async () => {
  const { bundle } = compileAgent({ agent_id: 'hostile-chat', model: scripted({ turns: [{ content: 'hello back' }] }) });
  const input: SessionInput = { bundle: await storeTestBundle(bundle), agent_id: 'hostile-chat' };
  const h = await t.client.workflow.start(SESSION_WORKFLOW_TYPE, { taskQueue: t.taskQueue, workflowId: `hostile-chat-${Date.now()}`, args: [input] });
  await waitForStatus(h, (s) => s.state === 'running');
  await bombard(h.workflowId, [], [[UPDATES.approve, PAYLOAD_SHAPES.approve], [UPDATES.reject, PAYLOAD_SHAPES.reject], ['sessionMessage', SESSION_MESSAGE_SHAPE]], []);

  expect((await h.query<RunStatus>('status')).state).toBe('running');
  const reply = await temporal(['update', 'execute', '--workflow-id', h.workflowId, '--name', 'sessionMessage', '--input', '{"text":"hello"}']);
  expect(reply.out).toContain('hello back');
  expect(((await h.fetchHistory()).events ?? []).filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
  await h.terminate('test over');
});
