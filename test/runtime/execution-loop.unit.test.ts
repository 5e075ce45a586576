/** The pure execution-loop scheduler (seed 003): wire form, ready set, skips, cycles, write-once State, alternatives. */
import fc from 'fast-check';
import type { JsonObject } from '../../src/compiled/types';
import { ExecutionPlan, findCycles, planCall, readState, withLoopKeys, writeState, written } from '../../src/runtime/execution-loop';
import type { ToolCall } from '../../src/runtime/messages';

const call = (id: string, args: JsonObject = {}, name = 'echo'): ToolCall => ({ id, name, arguments: args });

/** Drive a plan to the end: every ready call completes with `outcome(id)`; returns the start order. */
function drive(plan: ExecutionPlan, outcome: (id: string) => boolean = () => true): string[] {
  const order: string[] = [];
  for (let guard = 0; guard < 1000; guard++) {
    plan.settle();
    if (plan.done()) return order;
    const ready = plan.ready();
    if (!ready.length) throw new Error('stuck: nothing ready, nothing running');
    for (const id of ready) plan.start(id);
    // complete one at a time (the first started), like calls finishing one after another
    const [first, ...rest] = ready;
    order.push(first);
    plan.complete(first, outcome(first), `v-${first}`);
    for (const id of rest) {
      order.push(id);
      plan.complete(id, outcome(id), `v-${id}`);
    }
  }
  throw new Error('did not finish');
}

test('wire form: reserved keys are stripped; a single string dependency is accepted', () => {
  const p = planCall(call('a', { text: 'x', _dependsOn: 'b', _outputPath: '$.state.r.s' }));
  expect(p).toEqual({ call: { id: 'a', name: 'echo', args: { text: 'x' }, dependsOnCalls: ['b'], dependsOnPaths: [], outputPath: ['r', 's'] } });
  expect(planCall(call('a', { _outputPath: 'state.x' }))).toEqual({ error: expect.stringMatching(/not a State path: .*\$\.state\.<name>/) });
  expect(planCall(call('a', { _dependsOn: [1] }))).toEqual({ error: expect.stringMatching(/call id or a State path/) });
  expect(planCall(call('a', { _dependsOn: ['$.x'] }))).toEqual({ error: expect.stringMatching(/'\$\.x' is not a State path/) });
});

test('diamond: a, then b and c together, then d; e independent from the start', () => {
  const plan = new ExecutionPlan(
    [call('a'), call('b', { _dependsOn: ['a'] }), call('c', { _dependsOn: ['a'] }), call('d', { _dependsOn: ['b', 'c'] }), call('e')],
    {},
  );
  expect(plan.settle()).toEqual([]);
  expect(plan.ready()).toEqual(['a', 'e']);
  plan.start('a');
  plan.start('e');
  plan.complete('a', true);
  expect(plan.ready()).toEqual(['b', 'c']);
  plan.start('b');
  plan.start('c');
  plan.complete('b', true);
  expect(plan.ready()).toEqual([]);
  plan.complete('c', true);
  expect(plan.ready()).toEqual(['d']);
});

test('a failed dependency skips its dependants transitively, with the reason', () => {
  const plan = new ExecutionPlan([call('a'), call('b', { _dependsOn: 'a' }), call('c', { _dependsOn: 'b' }), call('x')], {});
  plan.start('a');
  plan.complete('a', false);
  expect(plan.settle()).toEqual([
    { id: 'b', status: 'skipped', reason: 'skipped: dependency a failed' },
    { id: 'c', status: 'skipped', reason: 'skipped: dependency b was skipped' },
  ]);
  expect(plan.ready()).toEqual(['x']);
});

test('unknown call ids and unwritable paths are refused; cycles are refused and their dependants skipped', () => {
  const plan = new ExecutionPlan(
    [call('a', { _dependsOn: 'zz' }), call('b', { _dependsOn: '$.state.nothing' }), call('c', { _dependsOn: 'd' }), call('d', { _dependsOn: 'c' }), call('e', { _dependsOn: 'c' }), call('s', { _dependsOn: 's' })],
    {},
  );
  const s = plan.settle();
  expect(s.find((x) => x.id === 'a')?.reason).toMatch(/unknown call id\(s\) zz; calls of this reply: b, c, d, e, s/);
  expect(s.find((x) => x.id === 'b')?.reason).toMatch(/\$\.state\.nothing, which is not in State and no call of this reply writes it/);
  expect(s.find((x) => x.id === 'c')?.reason).toMatch(/dependency cycle c -> d -> c|dependency cycle d -> c -> d/);
  expect(s.find((x) => x.id === 's')?.reason).toMatch(/dependency cycle s -> s/);
  expect(s.find((x) => x.id === 'e')).toEqual({ id: 'e', status: 'skipped', reason: 'skipped: dependency c was refused' });
  expect(plan.done()).toBe(true);
});

test('write-once: a path State already holds is refused; a path dependency waits for its writer', () => {
  const plan = new ExecutionPlan([call('w', { _outputPath: '$.state.city' }), call('r', { _dependsOn: '$.state.city' }), call('again', { _outputPath: '$.state.done' })], { done: 1 });
  expect(plan.settle()).toEqual([{ id: 'again', status: 'refused', reason: expect.stringMatching(/\$\.state\.done is already written and State is write-once/) }]);
  expect(plan.ready()).toEqual(['w']);
  plan.start('w');
  plan.complete('w', true, 'Paris');
  expect(plan.state).toEqual({ done: 1, city: 'Paris' });
  expect(plan.ready()).toEqual(['r']);
});

test('alternatives: one at a time in reply order; a failure lets the next run; a success skips the rest', () => {
  const plan = new ExecutionPlan([call('a1', { _outputPath: '$.state.x' }), call('a2', { _outputPath: '$.state.x' }), call('a3', { _outputPath: '$.state.x.y' })], {});
  expect(plan.ready()).toEqual(['a1']);
  plan.start('a1');
  expect(plan.ready()).toEqual([]);
  plan.complete('a1', false);
  expect(plan.settle()).toEqual([]);
  expect(plan.ready()).toEqual(['a2']);
  plan.start('a2');
  plan.complete('a2', true, { y: 2 });
  expect(plan.settle()).toEqual([{ id: 'a3', status: 'skipped', reason: 'skipped: alternative not needed, $.state.x.y was already written by call a2' }]);
  expect(plan.state).toEqual({ x: { y: 2 } });
  expect(plan.done()).toBe(true);
});

test('state helpers: nested write, read, written sees ancestors and descendants', () => {
  const s = writeState({ a: { b: 1 } }, ['a', 'c'], 2);
  expect(s).toEqual({ a: { b: 1, c: 2 } });
  expect(readState(s, ['a', 'c'])).toBe(2);
  expect(written(s, ['a'])).toBe(true);
  expect(written(s, ['a', 'b', 'z'])).toBe(true);
  expect(written(s, ['a', 'd'])).toBe(false);
  expect(findCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
});

test('tool schemas offered to the model declare the reserved keys (strict models can send them); non-object schemas are left alone', () => {
  const s = withLoopKeys({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false });
  expect(Object.keys(s.properties as JsonObject)).toEqual(['text', '_dependsOn', '_outputPath']);
  expect(s.required).toEqual(['text']);
  expect(s.additionalProperties).toBe(false);
  expect(withLoopKeys({ type: 'string' })).toEqual({ type: 'string' });
  // what planCall accepts is what the schema's pattern accepts
  const re = new RegExp(((s.properties as JsonObject)._outputPath as JsonObject).pattern as string);
  expect(re.test('$.state.a.b')).toBe(true);
  expect(re.test('state.a')).toBe(false);
});

// ---- properties ----------------------------------------------------------------------------

/** Random replies: up to 8 calls, each depending on random ids (some unknown, some cyclic), some writing random paths. */
const replyArb = fc
  .array(
    fc.record({
      deps: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
      pathDeps: fc.array(fc.constantFrom('p', 'q', 'p.z'), { maxLength: 2 }),
      out: fc.option(fc.constantFrom('p', 'q', 'r', 'p.z'), { nil: undefined }),
      ok: fc.boolean(),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((cs) =>
    cs.map((c, i) => ({
      call: call(`c${i}`, {
        ...(c.deps.length || c.pathDeps.length ? { _dependsOn: [...c.deps.map((d) => `c${d}`), ...c.pathDeps.map((p) => `$.state.${p}`)] } : {}),
        ...(c.out ? { _outputPath: `$.state.${c.out}` } : {}),
      }),
      ok: c.ok,
    })),
  );

test('property: the loop always drains (never stuck), every call ends, and a call starts only after its call dependencies succeeded', () => {
  fc.assert(
    fc.property(replyArb, (reply) => {
      const plan = new ExecutionPlan(
        reply.map((r) => r.call),
        {},
      );
      const ok = new Map(reply.map((r) => [r.call.id, r.ok]));
      const finished = new Set<string>();
      const order = drive(plan, (id) => {
        const p = plan.byId(id)!;
        for (const d of p.dependsOnCalls) if (!finished.has(d) || plan.statusOf(d) !== 'succeeded') throw new Error(`${id} started before ${d} succeeded`);
        finished.add(id);
        return ok.get(id)!;
      });
      expect(plan.done()).toBe(true);
      for (const id of order) expect(['succeeded', 'failed']).toContain(plan.statusOf(id));
    }),
    { numRuns: 300 },
  );
});

test('property: each State path is written by at most one call, and only by a call that succeeded', () => {
  fc.assert(
    fc.property(replyArb, (reply) => {
      const plan = new ExecutionPlan(
        reply.map((r) => r.call),
        {},
      );
      const ok = new Map(reply.map((r) => [r.call.id, r.ok]));
      drive(plan, (id) => ok.get(id)!);
      const writers = plan.calls.filter((c) => c.outputPath && plan.statusOf(c.id) === 'succeeded');
      for (let i = 0; i < writers.length; i++)
        for (let j = i + 1; j < writers.length; j++) {
          const a = writers[i].outputPath!.join('.');
          const b = writers[j].outputPath!.join('.');
          expect(a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`)).toBe(false);
        }
      for (const w of writers) expect(readState(plan.state, w.outputPath!)).toBe(`v-${w.id}`);
    }),
    { numRuns: 300 },
  );
});

test('property: no call on a dependency cycle ever runs', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 0, max: 3 }), (n, extra) => {
      const ring = Array.from({ length: n }, (_, i) => call(`r${i}`, { _dependsOn: `r${(i + 1) % n}` }));
      const free = Array.from({ length: extra }, (_, i) => call(`f${i}`));
      const plan = new ExecutionPlan([...ring, ...free], {});
      const order = drive(plan);
      expect(order.sort()).toEqual(free.map((f) => f.id).sort());
      for (const r of ring) expect(plan.reason(r.id)).toMatch(/dependency cycle/);
    }),
  );
});

test('alternatives keep reply order even when a later one is ready first; an earlier alternative depending on a later one is a cycle', () => {
  const plan = new ExecutionPlan([call('a'), call('alt1', { _dependsOn: 'a', _outputPath: '$.state.s' }), call('alt2', { _outputPath: '$.state.s' })], {});
  expect(plan.ready()).toEqual(['a']);
  plan.start('a');
  plan.complete('a', true);
  expect(plan.ready()).toEqual(['alt1']);
  plan.start('alt1');
  plan.complete('alt1', true, 1);
  expect(plan.settle()).toEqual([{ id: 'alt2', status: 'skipped', reason: 'skipped: alternative not needed, $.state.s was already written by call alt1' }]);
  const cyc = new ExecutionPlan([call('x1', { _dependsOn: 'x2', _outputPath: '$.state.t' }), call('x2', { _outputPath: '$.state.t' })], {});
  expect(cyc.settle().map((s) => s.reason)).toEqual([expect.stringMatching(/dependency cycle .*alternatives on one _outputPath wait for the earlier ones/), expect.stringMatching(/dependency cycle/)]);
});
