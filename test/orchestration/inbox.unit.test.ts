/** The pure half of tree-wide pending decisions (src/runtime/decisions.ts): redaction, the parent's merge, addressing. */
import type { JsonObject } from '../../src/compiled/types';
import type { DescendantDecisionsReport, PendingDecision } from '../../src/shared/contract';
import { approvalsAsDecisions, decideArgsProblem, decisionRef, decisionsDetails, DescendantDecisions, redactArgs, resolveCall, resolveDecide, resolveEscalation, waited } from '../../src/runtime/decisions';

const d = (over: Partial<PendingDecision>): PendingDecision => ({
  kind: 'approval', workflow_id: 'root', path: [], agent_id: 'a', call_id: 'c1', tool: 't', arguments: {}, reason: 'r', requested_at: '2026-01-01T00:00:00.000Z', ...over,
});
const report = (over: Partial<DescendantDecisionsReport>): DescendantDecisionsReport => ({ workflow_id: 'root/m', role: 'm', at: 1, seq: 1, decisions: [], ...over });

describe('redactArgs', () => {
  test('replaces dotted and array-item paths, leaves the rest and the input untouched', () => {
    const args: JsonObject = { card: '4111', amount: 5, owner: { ssn: '123', name: 'Ann' }, cards: [{ number: '1', exp: '12/30' }, { number: '2' }], tags: ['x', 'y'] };
    const out = redactArgs(args, ['card', 'owner.ssn', 'cards[].number', 'tags[]', 'missing.field']);
    expect(out).toEqual({ card: '[redacted]', amount: 5, owner: { ssn: '[redacted]', name: 'Ann' }, cards: [{ number: '[redacted]', exp: '12/30' }, { number: '[redacted]' }], tags: ['[redacted]', '[redacted]'] });
    expect(args.card).toBe('4111');
    expect((args.owner as JsonObject).ssn).toBe('123');
  });
  test('no sensitive fields: the same object', () => {
    const args = { a: 1 };
    expect(redactArgs(args, [])).toBe(args);
  });
});

test('approvalsAsDecisions: route approvals by tool, redaction by tool', () => {
  const who = { workflow_id: 'w', agent_id: 'ag' };
  const out = approvalsAsDecisions(
    [
      { call_id: 'c1', tool: 'charge', arguments: { card: '4111', amount: 3 }, reason: 'tool charge has approval_required', requested_at: 'T' },
      { call_id: 'route-1', tool: 'route', arguments: { keyword: 'go' }, reason: 'RequireHumanApproval', requested_at: 'T' },
    ],
    who,
    { sensitive: (t) => (t === 'charge' ? ['card'] : []) },
  );
  expect(out.map((x) => [x.kind, x.call_id, x.arguments])).toEqual([
    ['approval', 'c1', { card: '[redacted]', amount: 3 }],
    ['route_approval', 'route-1', { keyword: 'go' }],
  ]);
  expect(out[0]).toMatchObject({ workflow_id: 'w', agent_id: 'ag', path: [] });
});

describe('DescendantDecisions (what a parent keeps)', () => {
  test('prefixes the member role, keeps only the newest report per member, members in workflow-id order', () => {
    const t = new DescendantDecisions();
    expect(t.accept(report({ workflow_id: 'root/b', role: 'b', at: 5, seq: 1, decisions: [d({ workflow_id: 'root/b/c', path: ['c'], call_id: 'y' })] }))).toBe(true);
    expect(t.accept(report({ workflow_id: 'root/a', role: 'a', at: 5, seq: 1, decisions: [d({ workflow_id: 'root/a', call_id: 'x' })] }))).toBe(true);
    expect(t.list().map((x) => [x.path.join('/'), x.call_id])).toEqual([['a', 'x'], ['b/c', 'y']]);
    // An older report (delivered late) is ignored; a newer one replaces.
    expect(t.accept(report({ workflow_id: 'root/a', role: 'a', at: 4, seq: 9, decisions: [] }))).toBe(false);
    expect(t.accept(report({ workflow_id: 'root/a', role: 'a', at: 5, seq: 1, decisions: [] }))).toBe(false);
    expect(t.accept(report({ workflow_id: 'root/a', role: 'a', at: 5, seq: 2, decisions: [] }))).toBe(true);
    expect(t.list().map((x) => x.call_id)).toEqual(['y']);
  });
  test('a closed member drops out, and its late reports are ignored (not a later run of the same id)', () => {
    const t = new DescendantDecisions();
    t.accept(report({ at: 10, decisions: [d({ call_id: 'x' })] }));
    expect(t.closed('root/m', 20)).toBe(true);
    expect(t.list()).toEqual([]);
    expect(t.accept(report({ at: 15, seq: 2, decisions: [d({ call_id: 'x' })] }))).toBe(false);
    expect(t.closed('root/other', 20)).toBe(false);
    expect(t.accept(report({ at: 25, seq: 1, decisions: [d({ call_id: 'z' })] }))).toBe(true);
    expect(t.list().map((x) => x.call_id)).toEqual(['z']);
  });
});

describe('resolveCall (loom approve ROOT REF)', () => {
  const tree = [
    d({ workflow_id: 'root', call_id: 'r1' }),
    d({ workflow_id: 'root/s2', path: ['s2'], call_id: 'c1' }),
    d({ workflow_id: 'root/p/a1', path: ['p', 'a1'], call_id: 'c1' }),
    d({ workflow_id: 'root/p/a2', path: ['p', 'a2'], call_id: 'c2' }),
    d({ kind: 'escalation', workflow_id: 'root/q', path: ['q'], call_id: undefined, queue: 'ops' }),
  ];
  test('a call id unique in the tree', () => {
    expect(resolveCall(tree, 'c2')).toMatchObject({ ok: true, decision: { workflow_id: 'root/p/a2' } });
    expect(resolveCall(tree, 'r1')).toMatchObject({ ok: true, decision: { workflow_id: 'root' } });
  });
  test('an ambiguous call id lists the candidates; PATH:CALL_ID picks one', () => {
    const amb = resolveCall(tree, 'c1');
    expect(amb).toMatchObject({ ok: false, reason: 'ambiguous' });
    expect(amb.ok ? [] : amb.candidates.map(decisionRef)).toEqual(['s2:c1', 'p/a1:c1']);
    expect(resolveCall(tree, 'p/a1:c1')).toMatchObject({ ok: true, decision: { workflow_id: 'root/p/a1' } });
    expect(resolveCall(tree, ':r1')).toMatchObject({ ok: true, decision: { workflow_id: 'root' } });
  });
  test('unknown: none, with every pending call as candidates (escalations are not calls)', () => {
    const r = resolveCall(tree, 'nope');
    expect(r).toMatchObject({ ok: false, reason: 'none' });
    expect(r.ok ? [] : r.candidates.map(decisionRef)).toEqual(['r1', 's2:c1', 'p/a1:c1', 'p/a2:c2']);
    expect(resolveCall(tree, 'p/a2:c1')).toMatchObject({ ok: false, reason: 'none' });
  });
});

test('decisionsDetails lists every decision with its path; waited in words', () => {
  const text = decisionsDetails([d({ path: ['step-2-charger'], tool: 'charge', arguments: { card: '[redacted]' } }), d({ kind: 'escalation', call_id: undefined, queue: 'ops' })]);
  expect(text).toContain('Waiting on a human (2):');
  expect(text).toContain('- step-2-charger · a · approval c1: charge {"card":"[redacted]"} · since 2026-01-01T00:00:00.000Z');
  expect(text).toContain("- (this run) · a · human queue 'ops'");
  expect(decisionsDetails([])).toBe('');
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  expect([waited('2026-01-01T00:00:00.000Z', t0 + 42_000), waited('2026-01-01T00:00:00.000Z', t0 + 185_000), waited('2026-01-01T00:00:00.000Z', t0 + 2 * 86400_000 + 3600_000)]).toEqual(['42s', '3m05s', '2d1h']);
});

describe('the decide update (resolveEscalation, decideArgsProblem, resolveDecide)', () => {
  const esc = (path: string[], queue: string) => d({ kind: 'escalation', path, workflow_id: ['root', ...path].join('/'), queue, call_id: undefined, tool: undefined, arguments: undefined });
  const ds = [d({ path: ['a'], workflow_id: 'root/a', call_id: 'c1' }), esc(['b', 'desk'], 'ops'), esc(['c'], 'ops'), esc(['e'], 'legal')];
  test('an escalation by its queue when unique, by PATH:QUEUE, or by the member path alone', () => {
    expect(resolveEscalation(ds, 'legal')).toMatchObject({ ok: true, decision: { path: ['e'] } });
    expect(resolveEscalation(ds, 'b/desk:ops')).toMatchObject({ ok: true, decision: { path: ['b', 'desk'] } });
    expect(resolveEscalation(ds, 'c')).toMatchObject({ ok: true, decision: { path: ['c'] } });
    const amb = resolveEscalation(ds, 'ops');
    expect(amb.ok).toBe(false);
    expect(!amb.ok && amb.candidates.map(decisionRef)).toEqual(['b/desk:ops', 'c:ops']);
    expect(resolveEscalation(ds, 'c1')).toMatchObject({ ok: false, reason: 'none' });
  });
  test('payload shape: what each decision needs', () => {
    expect(decideArgsProblem({ ref: 'c1', decision: 'approve' })).toBeUndefined();
    expect(decideArgsProblem({ ref: 'c1', decision: 'approve', args: [] as never })).toMatch(/JSON object/);
    expect(decideArgsProblem({ ref: 'c1', decision: 'reject' })).toMatch(/reason/);
    expect(decideArgsProblem({ ref: 'ops', decision: 'respond' })).toMatch(/output/);
    expect(decideArgsProblem({ ref: 'ops', decision: 'respond', close: true, output: 1 })).toMatch(/not both/);
    expect(decideArgsProblem({ ref: 'ops', decision: 'respond', output: null })).toBeUndefined();
    expect(decideArgsProblem({ ref: '', decision: 'approve' })).toMatch(/"ref"/);
    expect(decideArgsProblem({ ref: 'x', decision: 'maybe' as never })).toMatch(/"approve", "reject" or "respond"/);
    expect(decideArgsProblem(undefined)).toMatch(/JSON object/);
  });
  test('resolveDecide: approvals by call, responds by queue, refusals name what is pending', () => {
    expect(resolveDecide(ds, { ref: 'c1', decision: 'reject', reason: 'no' }, 'T')).toMatchObject({ ok: true, decision: { workflow_id: 'root/a' } });
    expect(resolveDecide(ds, { ref: 'legal', decision: 'respond', close: true }, 'T')).toMatchObject({ ok: true, decision: { queue: 'legal' } });
    expect(resolveDecide(ds, { ref: 'legal', decision: 'approve' }, 'T')).toEqual({ ok: false, message: "no pending approval 'legal' in T; pending: a:c1" });
    expect(resolveDecide(ds, { ref: 'ops', decision: 'respond', output: 'x' }, 'T')).toEqual({ ok: false, message: "'ops' names 2 pending human-queue escalations in T; name one as PATH:QUEUE: b/desk:ops, c:ops" });
    expect(resolveDecide([], { ref: 'x', decision: 'approve' }, 'T')).toEqual({ ok: false, message: "no pending approval 'x' in T; no approval is pending" });
  });
});

test('DescendantDecisions: a continue-as-new carries each open member\'s newest report; the next run lists them and takes newer reports', () => {
  const kept = new DescendantDecisions();
  kept.accept(report({ workflow_id: 'root/a', role: 'a', at: 5, seq: 2, decisions: [d({ call_id: 'x' })] }));
  const carried = JSON.parse(JSON.stringify(kept.snapshot()));
  const next = new DescendantDecisions();
  next.restore(carried);
  expect(next.list().map(decisionRef)).toEqual(['a:x']);
  expect(next.accept(report({ workflow_id: 'root/a', role: 'a', at: 5, seq: 1, decisions: [] }))).toBe(false);
  expect(next.accept(report({ workflow_id: 'root/a', role: 'a', at: 6, seq: 1, decisions: [] }))).toBe(true);
  expect(next.list()).toEqual([]);
  expect(new DescendantDecisions().snapshot()).toEqual([]);
});
