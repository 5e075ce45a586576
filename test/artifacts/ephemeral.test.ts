/**
 * `retention_class: ephemeral` on the real dev server (decisions 261-264), started through the
 * client path (`startPrepared`, what `loom run`/`loom start` and the MCP server use): the input
 * goes to the store under the run's id (the start event holds a reference), the run's activities
 * list what they create, and the run's end deletes it all, completed, failed or cancelled. A
 * completed run's output waits for collection (`loom result`), then is gone. Each test scans every
 * history event (payloads decoded to JSON text, failure messages) and every file of the store.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { CompiledAgent, CompiledBundle } from '../../src/compiled/types';
import { openStore } from '../../src/store';
import { storeBundle } from '../../src/activities/blob-store';
import { startPrepared, type PreparedRun } from '../../src/operator/runs';
import { EPHEMERAL_OUTPUT_KIND, EPHEMERAL_RUN_KIND, EPHEMERAL_WRITTEN_KIND } from '../../src/runtime/artifacts';
import type { JsonObject } from '../../src/compiled/types';
import { builtin, compileAgent, definition, scripted } from '../helpers/definitions';
import { startCliHarness, CliHarness, EXAMPLES, statusWhen, useBuiltCli } from '../cli/harness';
import { historyEvents } from '../helpers/history';
import { letTimePass } from '../helpers/wait';

/** A compiled agent and its bundle, as compileAgent returns them. */
type Compiled = { bundle: CompiledBundle; agent: CompiledAgent };
/** Artifacts off, with this retention class (ephemeral: the run keeps nothing once it is collected). */
const noArtifacts = (retention_class: CompiledAgent['artifacts']['retention_class']) => ({ enabled: false, save_input: false, save_output: false, save_intermediate: false, retention_class });
const READ_FILE = builtin('read_file', { input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } });

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('ephemeral');
  // startPrepared starts on LOOM_TASK_QUEUE: this harness's worker.
  process.env.LOOM_TASK_QUEUE = h.taskQueue;
});
afterAll(async () => {
  delete process.env.LOOM_TASK_QUEUE;
  await h.close();
});

const phrase = (what: string) => `EPH-${what}-SECRET-${randomBytes(5).toString('hex').toUpperCase()}`;

/**
 * An agent that reads a workspace file (the tool result holds the secret, its arguments do not) and
 * answers with it: the model's reply carries the secret, the agent definition (bundle, loadAgent) does not.
 */
function reader(retention: CompiledAgent['artifacts']['retention_class'], over: { maxTurns?: number; approval?: boolean } = {}): Compiled {
  return compileAgent({
    agent_id: 'keeper',
    model: scripted({ turns: [{ tool_calls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] }, { content: 'the note says {{last_tool_result}}' }] }),
    tools: [builtin('read_file', { input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, approval_required: over.approval === true })],
    front: { artifacts: noArtifacts(retention), ...(over.maxTurns ? { runtime: { max_turns: over.maxTurns } } : {}) },
  });
}

/** pii-regex with on_fail apply: e-mail addresses become `[EMAIL]`. */
const PII = definition('guardrail', {
  guardrail_id: 'pii-scan', version: '1.0.0', status: 'active', description: 'Builtin pii-regex check.',
  behaviour: { result_type: 'transform' }, provider: { type: 'builtin', name: 'pii-regex' },
});
const PII_USE = [{ ref: 'pii-scan', on_fail: 'apply' }];

/**
 * An agent that reads the note, then passes what it read IN a tool call's arguments (echo, which
 * waits for approval; a tool_input guardrail rewrites the arguments first), and answers with the
 * echoed text through an output guardrail that rewrites the answer.
 */
function relay(retention: CompiledAgent['artifacts']['retention_class']): Compiled {
  return compileAgent({
    agent_id: 'relay',
    model: scripted({
      turns: [
        { tool_calls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] },
        { tool_calls: [{ name: 'echo', arguments: { text: 'relay {{last_tool_result}} to ops@example.com' } }] },
        { content: 'the echo said {{last_tool_result}}; mail ops@example.com' },
      ],
    }),
    tools: [
      READ_FILE,
      builtin('echo', { input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, approval_required: true }),
    ],
    others: [PII],
    front: { guardrails: { tool_input: PII_USE, output: PII_USE }, artifacts: noArtifacts(retention) },
  });
}

async function start(c: Compiled, input: string, toolSecret: string) {
  const { bundle, agent: a } = c;
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-eph-ws-'));
  fs.writeFileSync(path.join(ws, 'note.txt'), `the code is ${toolSecret}`);
  const ref = await storeBundle(openStore(), bundle);
  bundles.add(ref.hash.replace(/^sha256:/, ''));
  const p: PreparedRun = {
    bundle, root: a, input, inputFromExample: false, workflowType: 'agfReactWorkflow',
    runInput: { bundle: ref, agent_id: a.agent_id, input, options: { workspace: ws } },
  };
  return startPrepared(h.t.client, p);
}

/** Every payload of every event, decoded, plus failure messages: one text. */
async function historyText(id: string): Promise<string> {
  const events = await historyEvents(h.handle(id));
  // Payload bytes (and metadata) come as Uint8Array or base64 text: both decoded to UTF-8.
  return JSON.stringify(events, (k, v: unknown) => {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
    if ((k === 'data' || k === 'encoding') && typeof v === 'string') return Buffer.from(v, 'base64').toString('utf8');
    return v;
  });
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The compiled bundles the tests stored: the agent definition (its scripted replies), not run content. */
const bundles = new Set<string>();

/** The store files holding `text` (every blob and record of the folder backend but the bundles). */
function storeFilesWith(text: string): string[] {
  return filesUnder(h.env.LOOM_STORE_DIR!).filter((f) => ![...bundles].some((b) => path.basename(f).includes(b)) && fs.readFileSync(f).includes(text));
}

async function ephemeralRecords(id: string): Promise<string[]> {
  const s = openStore();
  const key = `${encodeURIComponent(id)}/`;
  const out: string[] = [];
  for (const kind of [EPHEMERAL_RUN_KIND, EPHEMERAL_WRITTEN_KIND, EPHEMERAL_OUTPUT_KIND]) {
    for (const r of await s.listRecords(kind, key)) out.push(`${kind}/${r.key}`);
  }
  return out;
}

test('a completed ephemeral run: input, tool result and answer in no history event, nothing in the store once the output is collected; standard keeps them', async () => {
  const [input, tool] = [phrase('INPUT'), phrase('TOOL')];
  const std = await start(reader('standard'), input, tool);
  expect((await std.result()).output).toBe(`the note says the code is ${tool}`);
  // The scan can fail: a standard run's start event holds the input, its store the tool result.
  const stdText = await historyText(std.workflowId);
  expect(stdText).toContain(input);
  expect(stdText).toContain(`the note says the code is ${tool}`);
  expect(storeFilesWith(tool).length).toBeGreaterThan(0);

  const [input2, tool2] = [phrase('INPUT'), phrase('TOOL')];
  const eph = await start(reader('ephemeral'), input2, tool2);
  const result = await eph.result();
  expect(result.output).toEqual({ ephemeral_output: eph.workflowId, collect_with: `loom result ${eph.workflowId}` });
  const text = await historyText(eph.workflowId);
  expect(text).not.toContain(input2);
  // Neither the tool result nor the model's answer quoting it: the answer is stored by the model activity (decision 269).
  expect(text).not.toContain(tool2);
  // Before collection the store holds the output only (no input, no tool result, no chain).
  expect(storeFilesWith(input2)).toEqual([]);
  expect(storeFilesWith(tool2).length).toBe(1);
  expect(await ephemeralRecords(eph.workflowId)).toEqual([`${EPHEMERAL_OUTPUT_KIND}/${encodeURIComponent(eph.workflowId)}/`]);

  // The client collects it once (the real CLI); a second collection says plainly that it is gone.
  const first = await h.loom(['result', eph.workflowId, '--json']);
  expect(first.code).toBe(0);
  expect(JSON.parse(first.out)).toBe(`the note says the code is ${tool2}`);
  expect(storeFilesWith(tool2)).toEqual([]);
  expect(await ephemeralRecords(eph.workflowId)).toEqual([]);
  const again = await h.loom(['result', eph.workflowId]);
  expect(again.code).toBe(1);
  expect(again.err).toMatch(/ephemeral run and its output is no longer in the store: it was already collected/);
});

test('a failing ephemeral run (a limit after the tool call) leaves nothing in the store', async () => {
  const [input, tool] = [phrase('INPUT'), phrase('TOOL')];
  const eph = await start(reader('ephemeral', { maxTurns: 1 }), input, tool);
  await expect(eph.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  const text = await historyText(eph.workflowId);
  expect(text).toContain('endEphemeralRun');
  for (const p of [input, tool]) {
    expect(text).not.toContain(p);
    expect(storeFilesWith(p)).toEqual([]);
  }
  expect(await ephemeralRecords(eph.workflowId)).toEqual([]);
});

test('a cancelled ephemeral run (waiting for a tool approval) leaves nothing in the store', async () => {
  const [input, tool] = [phrase('INPUT'), phrase('TOOL')];
  const eph = await start(reader('ephemeral', { approval: true }), input, tool);
  await statusWhen(h, eph.workflowId, 'waiting for the approval', (s) => s.state === 'waiting_for_approval');
  expect(storeFilesWith(input).length).toBeGreaterThan(0);
  await eph.cancel();
  await expect(eph.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  const text = await historyText(eph.workflowId);
  expect(text).toContain('endEphemeralRun');
  expect(text).not.toContain(input);
  expect(storeFilesWith(input)).toEqual([]);
  expect(await ephemeralRecords(eph.workflowId)).toEqual([]);
});

test('loom run of an ephemeral agent prints the output it collects; afterwards loom result says it is gone', async () => {
  // The execution-loop example (scripted model) with retention_class ephemeral.
  const registry = path.join(h.home, 'registry-ephemeral');
  fs.cpSync(path.join(EXAMPLES, 'execution-loop'), registry, { recursive: true });
  const file = path.join(registry, 'agents', 'order-planner.agent.md');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('artifacts:\n  enabled: false\n', 'artifacts:\n  enabled: false\n  retention_class: ephemeral\n'));
  expect(fs.readFileSync(file, 'utf8')).toContain('retention_class: ephemeral');
  const r = await h.loom(['run', 'order-planner', '--registry', registry, '--json']);
  expect(r.code).toBe(0);
  // --json prints only the output: the run is the queue's order-planner run.
  const id = (await h.startedOnQueue()).find((w) => w.startsWith('order-planner-'))!;
  expect(id).toBeDefined();
  const printed = JSON.parse(r.out.trim()) as unknown;
  const result = await h.handle(id).result();
  // The run's result names where the output was; the CLI printed the output itself, and collected it.
  expect(result.output).toEqual({ ephemeral_output: id, collect_with: `loom result ${id}` });
  expect(printed).not.toEqual(result.output);
  expect(await ephemeralRecords(id)).toEqual([]);
  const after = await h.loom(['result', id]);
  expect(after.code).toBe(1);
  expect(after.err).toMatch(/already collected \(by loom run or loom result\), or not collected within LOOM_EPHEMERAL_PICKUP_HOURS and purged/);
});

test('an output nobody collects is deleted by the artifacts purge after LOOM_EPHEMERAL_PICKUP_HOURS', async () => {
  const [input, tool] = [phrase('INPUT'), phrase('TOOL')];
  const eph = await start(reader('ephemeral'), input, tool);
  await eph.result();
  expect(await ephemeralRecords(eph.workflowId)).toEqual([`${EPHEMERAL_OUTPUT_KIND}/${encodeURIComponent(eph.workflowId)}/`]);
  // The worker (this process) reads the window as the purge runs: 0.0001 h is 0.36 s.
  process.env.LOOM_EPHEMERAL_PICKUP_HOURS = '0.0001';
  try {
    await letTimePass(500, 'the 0.36 s pickup window runs out: the expiry is what this test controls');
    const purge = await h.loom(['artifacts', 'purge']);
    expect(purge.err).toBe('');
    expect(purge.out).toMatch(/, and [1-9]\d* uncollected ephemeral output\(s\)\n$/);
  } finally {
    delete process.env.LOOM_EPHEMERAL_PICKUP_HOURS;
  }
  expect(await ephemeralRecords(eph.workflowId)).toEqual([]);
  expect(storeFilesWith(tool)).toEqual([]);
  const late = await h.loom(['result', eph.workflowId]);
  expect(late.code).toBe(1);
  expect(late.err).toMatch(/not collected within LOOM_EPHEMERAL_PICKUP_HOURS and purged/);
});

test('tool call arguments and a guarded answer: not in an ephemeral run\'s history, shown to the operator from the store; standard keeps them', async () => {
  const relayed = (tool: string) => `relay the code is ${tool} to [EMAIL]`;
  /** Run the relay agent to its approval, check what the operator sees, approve, and return the run's result. */
  async function approveRelay(retention: 'standard' | 'ephemeral', input: string, tool: string) {
    const run = await start(relay(retention), input, tool);
    const s = await statusWhen(h, run.workflowId, 'waiting for the approval of echo', (x) => x.state === 'waiting_for_approval');
    const callId = s.pending_approvals[0].call_id;
    // loom status and loom inbox show the (guardrail-rewritten) arguments, read from the store for an ephemeral run.
    const status = await h.loom(['status', run.workflowId, '--json']);
    expect(status.code).toBe(0);
    expect((JSON.parse(status.out) as { pending_approvals: { arguments: JsonObject }[] }).pending_approvals[0].arguments).toEqual({ text: relayed(tool) });
    const text = await h.loom(['status', run.workflowId]);
    expect(text.out).toContain(`pending approval ${callId}: echo {"text":"${relayed(tool)}"}`);
    const inbox = await h.loom(['inbox', '--json']);
    const mine = (JSON.parse(inbox.out) as { root_workflow_id: string; arguments?: JsonObject }[]).find((d) => d.root_workflow_id === run.workflowId);
    expect(mine?.arguments).toEqual({ text: relayed(tool) });
    const ok = await h.loom(['approve', run.workflowId, callId]);
    expect(ok.code).toBe(0);
    return { run, result: await run.result() };
  }
  const answer = (tool: string) => `the echo said ${relayed(tool)}; mail [EMAIL]`;

  // The control: a standard run's history holds the arguments and the answer (the scan can fail).
  const [input, tool] = [phrase('INPUT'), phrase('TOOL')];
  const std = await approveRelay('standard', input, tool);
  expect(std.result.output).toBe(answer(tool));
  const stdText = await historyText(std.run.workflowId);
  expect(stdText).toContain(relayed(tool));
  expect(stdText).toContain(answer(tool));

  const [input2, tool2] = [phrase('INPUT'), phrase('TOOL')];
  const eph = await approveRelay('ephemeral', input2, tool2);
  expect(eph.result.output).toEqual({ ephemeral_output: eph.run.workflowId, collect_with: `loom result ${eph.run.workflowId}` });
  const ephText = await historyText(eph.run.workflowId);
  // The calls ran (the tool_input and output guardrails, the approval, both tools) with their arguments only by reference.
  for (const step of ['runGuardrails', 'checkToolArgs', 'runTool', 'approveCall', '__agentloom_args_ref']) expect(ephText).toContain(step);
  expect(ephText).not.toContain(input2);
  expect(ephText).not.toContain(tool2);
  // The store holds only the kept output until it is collected; then nothing.
  expect(storeFilesWith(tool2).length).toBe(1);
  const got = await h.loom(['result', eph.run.workflowId, '--json']);
  expect(got.code).toBe(0);
  expect(JSON.parse(got.out)).toBe(answer(tool2));
  expect(storeFilesWith(tool2)).toEqual([]);
  expect(storeFilesWith(input2)).toEqual([]);
  expect(await ephemeralRecords(eph.run.workflowId)).toEqual([]);
});

test('a dependencies-loop result written to State: an ephemeral run\'s history holds its shape only, and the dependant still runs', async () => {
  const planner = (retention: CompiledAgent['artifacts']['retention_class']) => {
    return compileAgent({
      agent_id: 'planner',
      model: scripted({
        turns: [
          {
            tool_calls: [
              { id: 'c1', name: 'read_file', arguments: { path: 'note.txt', _outputPath: '$.state.note' } },
              { id: 'c2', name: 'echo', arguments: { text: 'after the note', _dependsOn: '$.state.note' } },
            ],
          },
          { content: 'done: {{last_tool_result}}' },
        ],
      }),
      tools: [
        READ_FILE,
        builtin('echo', { input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }),
      ],
      front: { runtime: { execution_loop: 'dependencies' }, artifacts: noArtifacts(retention) },
    });
  };
  const [input, tool] = [phrase('INPUT'), phrase('TOOL')];
  const std = await start(planner('standard'), input, tool);
  expect((await std.result()).output).toBe('done: after the note');
  // The control: the standard run's State (readToolOutcome's result) holds the value.
  expect(await historyText(std.workflowId)).toContain(`the code is ${tool}`);

  const [input2, tool2] = [phrase('INPUT'), phrase('TOOL')];
  const eph = await start(planner('ephemeral'), input2, tool2);
  await eph.result();
  const text = await historyText(eph.workflowId);
  expect(text).toContain('readToolOutcome');
  expect(text).not.toContain(tool2);
  const got = await h.loom(['result', eph.workflowId, '--json']);
  expect(JSON.parse(got.out)).toBe('done: after the note');
  expect(storeFilesWith(tool2)).toEqual([]);
});
