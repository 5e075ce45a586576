/**
 * agf.batch members that qualify (src/runtime/inline-member.ts) run inline in their batch or
 * shard as model-turn activities (patch `inline-single-turn-members`). Each case runs the same
 * batch twice on the real dev server: once with the member as the builders make it (its
 * runtime.timeout_seconds, a deadline that never fires, keeps it a child workflow) and once without
 * that deadline (inline), and asserts the same outputs, item errors, warnings, usage and progress,
 * and that the inline run started no member child workflow (except a member whose reply needed the
 * react loop, which runs as a child from the start).
 */
import type { CompiledAgent, JsonValue } from '../../src/compiled/types';
import type { AgentRunResult, RunStatus } from '../../src/shared/contract';
import { agent, bundle, locals } from './builders';
import { childIds, Harness, startHarness } from './harness';
import { historyEvents } from '../helpers/history';

let h: Harness;
beforeAll(async () => { h = await startHarness('orch-inline'); });
afterAll(async () => { await h?.close(); });

const decode = (p: { data?: Uint8Array | null } | undefined | null): { id: string } => JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

type BatchResult = AgentRunResult & { item_errors?: { index: number; error: string }[] };

/** The member without runtime.timeout_seconds: it qualifies to run inline. */
function inlineable(a: CompiledAgent): CompiledAgent {
  const runtime = { ...a.runtime };
  delete runtime.timeout_seconds;
  return { ...a, runtime };
}

function batchOf(member: CompiledAgent, root: string): ReturnType<typeof bundle> {
  return bundle(root, [
    agent({ id: root, policy: { id: 'agf.batch', config: { agent: 'item', input_mapping: { item: 'parent.input.items.[].value' }, max_concurrency: 3 } }, local_agents: locals('item') }),
    member,
  ]);
}

async function runBatch(member: CompiledAgent, root: string, values: JsonValue[], shardSize?: number) {
  const wf = await h.start(batchOf(member, root), { items: values.map((value) => ({ value })) }, shardSize ? { options: { scale: { batch_shard_size: shardSize } } } : {});
  const res = (await wf.result()) as BatchResult;
  const status = await wf.query<RunStatus>('status');
  const children = await childIds(h, wf.workflowId);
  // The batch and its shards (their histories record the patch where members run).
  const runs = [wf, ...children.filter((id) => /\/shard-\d+$/.test(id)).map((id) => h.t.client.workflow.getHandle(id))];
  const patches = (await Promise.all(runs.map(historyEvents))).flat().filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').map((e) => decode(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]).id);
  return { res, status, children, id: wf.workflowId, patched: patches.includes('inline-single-turn-members') };
}

/** Both paths on the same member and items; returns the inline run for extra checks. */
async function sameOnBothPaths(member: CompiledAgent, name: string, values: JsonValue[], shardSize?: number) {
  const child = await runBatch(member, `${name}-child`, values, shardSize);
  const inline = await runBatch(inlineable(member), `${name}-inline`, values, shardSize);
  // The child path really ran children, and did not take the inline path.
  expect(child.children.filter((id) => /\/item-\d+$/.test(id))).toHaveLength(values.length);
  expect(child.patched).toBe(false);
  expect(inline.patched).toBe(true);
  expect(inline.res.output).toEqual(child.res.output);
  expect(inline.res.item_errors).toEqual(child.res.item_errors);
  expect(inline.res.warnings).toEqual(child.res.warnings);
  expect(inline.res.usage).toEqual(child.res.usage);
  expect(inline.res.usage.total_tokens).toBeGreaterThan(0);
  expect(inline.status.progress).toEqual(child.status.progress);
  expect(inline.status.state).toBe(child.status.state);
  return { child, inline };
}

const SCHEMA = { type: 'object', required: ['n'], properties: { n: { type: 'number' } } };

test('answers, a correction turn, a rejected answer, a provider error and a tool-calling reply: the same as child runs', async () => {
  const member = agent({
    id: 'item',
    output_schema: SCHEMA,
    model: {
      rules: [
        { when: { input_contains: 'alpha' }, reply: { content: { n: 1 } } },
        { when: { input_contains: 'bravo', turn: 0 }, reply: { content: 'not json at all' } },
        { when: { input_contains: 'bravo' }, reply: { content: { n: 2 } } },
        { when: { input_contains: 'charlie' }, reply: { content: 'never json' } },
        { when: { input_contains: 'delta' }, reply: { error: { status: 400, message: 'cannot process delta' } } },
        // A reply with tool calls needs the react loop (the unknown tool's error goes back to the model).
        { when: { input_contains: 'echo', turn: 0 }, reply: { tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }] } },
        { when: { input_contains: 'echo' }, reply: { content: { n: 5 } } },
      ],
      turns: [{ content: { n: 0 } }],
    },
  });
  const values = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
  const { child, inline } = await sameOnBothPaths(member, 'inl-mixed', values);
  expect(inline.res.output).toEqual([{ n: 1 }, { n: 2 }, null, null, { n: 5 }, { n: 0 }]);
  expect(inline.res.item_errors).toEqual([
    { index: 2, error: expect.stringMatching(/final answer rejected after a correction turn/) },
    { index: 3, error: expect.stringMatching(/model provider error 400: cannot process delta/) },
  ]);
  expect(inline.res.warnings.join('\n')).toMatch(/item-1: turn 1: .*asked the model for a correction/);
  expect(child.status.progress).toMatchObject({ completed: 4, failed: 2, of: 6 });
  // Inline: only the member whose reply called a tool ran as a child workflow.
  expect(inline.children).toEqual([`${inline.id}/item-4`]);
});

test('runtime.max_input_chars and runtime.max_turns fail an inline member as they fail its child run', async () => {
  const member = agent({
    id: 'item',
    output_schema: SCHEMA,
    max_turns: 1,
    model: {
      rules: [
        { when: { input_contains: 'fix', turn: 0 }, reply: { content: 'not json' } },
        { when: { input_contains: 'fix' }, reply: { content: { n: 2 } } },
      ],
      turns: [{ content: { n: 1 } }],
    },
  });
  member.runtime.max_input_chars = 40;
  const { inline } = await sameOnBothPaths(member, 'inl-limits', ['ok', 'fix', 'x'.repeat(60)]);
  expect(inline.res.output).toEqual([{ n: 1 }, null, null]);
  expect(inline.res.item_errors).toEqual([
    { index: 1, error: expect.stringMatching(/runtime\.max_turns \(1\) reached before a final answer/) },
    { index: 2, error: expect.stringMatching(/more than runtime\.max_input_chars \(40\)/) },
  ]);
  expect(inline.children).toEqual([]);
});

test('in a sharded batch the members run inline in the shards, results in input order', async () => {
  const member = agent({ id: 'item', model: { rules: [{ when: { input_contains: 'v3' }, reply: { error: { status: 400, message: 'no v3' } } }], turns: [{ content: 'done {{input.item}}' }] } });
  const values = Array.from({ length: 7 }, (_, i) => `v${i}`);
  const { inline } = await sameOnBothPaths(member, 'inl-shards', values, 3);
  expect(inline.res.output).toEqual(values.map((v) => (v === 'v3' ? null : `done ${v}`)));
  // Three shard children, no member children.
  expect(inline.children).toEqual([0, 1, 2].map((k) => `${inline.id}/shard-${k}`));
  expect(inline.patched).toBe(true);
});
