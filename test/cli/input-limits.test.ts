/**
 * Inputs the engine cannot carry as they are, through the real `loom` CLI on the suite's dev server:
 * a 3 MB input to an agf.react agent is stored by claim check (the run completes, its history holds
 * the reference, not the text); the same size to an orchestration is refused naming the limit; an
 * input nested 20,000 deep is refused naming the depth, never with a stack overflow.
 */
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { CliHarness, DEMO_REGISTRY, EXAMPLES, STACK_TRACE, startCliHarness, startedId, useBuiltCli } from './harness';
import { historyEvents, HistoryEvent } from '../helpers/history';
import { MAX_INPUT_DEPTH } from '../../src/operator/input-limits';

let h: CliHarness;
// The CLI as the package ships it (test/helpers/built-cli.ts): it starts several times faster than from source.
beforeAll(useBuiltCli, 600_000);
beforeAll(async () => {
  h = await startCliHarness('input-limits');
});
afterAll(async () => {
  await h.close();
});

/** An event's payloads as text (payload bytes serialise as base64 `data`), then the event itself. */
function eventText(e: HistoryEvent): string {
  const payloads: string[] = [];
  const raw = JSON.stringify(e, (k, v: unknown) => {
    if (k === 'data' && typeof v === 'string') payloads.push(Buffer.from(v, 'base64').toString('utf8'));
    return v;
  });
  return [...payloads, raw].join('\n');
}

function inputFile(name: string, text: string): string {
  const file = path.join(h.home, name);
  fs.writeFileSync(file, text);
  return file;
}

const MB3 = 3 * 1024 * 1024;

test('a 3 MB input to an agf.react agent is stored by claim check: the run completes and its history holds the reference, not the text', async () => {
  const marker = `BULK-${randomBytes(6).toString('hex').toUpperCase()}`;
  const notes = `${marker} ${'x'.repeat(MB3)}`;
  const file = inputFile('bulk.json', JSON.stringify({ destination: 'Lisbon', nights: 3, nightly_rate_eur: 140, daily_budget_eur: 60, notes }));
  const p = h.spawnLoom(['run', 'trip-planner', '--registry', DEMO_REGISTRY, '--input', `@${file}`, '--approval-timeout', '1', '--on-approval-timeout', 'reject']);
  const id = await startedId(p);
  const r = await p.done;
  expect({ code: r.code, stack: STACK_TRACE.test(r.err) }).toEqual({ code: 0, stack: false });
  // The model read the input from the stored first message: its answer names the destination.
  expect(JSON.parse(r.out)).toEqual({ destination: 'Lisbon', total_cost_eur: 660, itinerary_saved: null });

  const events = await historyEvents(h.handle(id));
  const texts = events.map(eventText);
  expect(texts.filter((t) => t.includes(marker))).toEqual([]);
  // The decoding works: the destination the model answered with is in the history's payloads.
  expect(texts.some((t) => t.includes('"destination":"Lisbon"'))).toBe(true);
  const started = events[0].workflowExecutionStartedEventAttributes;
  const startInput = JSON.parse(Buffer.from(started!.input!.payloads![0].data!).toString('utf8')) as { input?: unknown; options?: { input_ref?: { hash: string } } };
  expect(startInput.input).toBeUndefined();
  expect(startInput.options?.input_ref?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  // The whole history is small: the 3 MB stayed in the store.
  expect(texts.join('').length).toBeLessThan(MB3 / 10);
}, 120_000);

test('a 3 MB input to an orchestration is refused before anything starts, naming the limit and the alternative', async () => {
  const file = inputFile('bulk-mood.json', JSON.stringify({ mood: 'y'.repeat(MB3) }));
  const before = await h.startedOnQueue();
  const r = await h.loom(['start', 'weekend-planner', '--registry', path.join(EXAMPLES, 'orchestrators', 'parallel'), '--input', `@${file}`]);
  expect({ code: r.code, out: r.out, stack: STACK_TRACE.test(r.err) }).toEqual({ code: 1, out: '', stack: false });
  expect(r.err).toMatch(/^loom start: input is 3\.0 MB as JSON, more than the 1\.0 MB a run input may carry \(Temporal refuses payloads over 2\.0 MB;/);
  expect(r.err).toContain('widget: file');
  expect(await h.startedOnQueue()).toEqual(before);
});

test('an input nested 20,000 deep is refused naming the depth, with no stack overflow', async () => {
  const deep = (n: number) => `{"destination":"Lisbon","nights":3,"nightly_rate_eur":140,"daily_budget_eur":60,"notes":${'['.repeat(n)}${']'.repeat(n)}}`;
  const file = inputFile('deep.json', deep(20_000));
  for (const cmd of ['run', 'start']) {
    const r = await h.loom([cmd, 'trip-planner', '--registry', DEMO_REGISTRY, '--input', `@${file}`]);
    expect({ code: r.code, out: r.out, stack: STACK_TRACE.test(r.err) }).toEqual({ code: 1, out: '', stack: false });
    expect(r.err).toBe(`loom ${cmd}: input nests deeper than ${MAX_INPUT_DEPTH} levels of arrays/objects, the most a run input may have: flatten it, or pass the data as a file (a field with widget: file)\n`);
  }
  // At the limit it is accepted (the object itself is one level).
  const atLimit = await h.loom(['start', 'trip-planner', '--registry', DEMO_REGISTRY, '--input', deep(MAX_INPUT_DEPTH - 1)]);
  expect(atLimit).toMatchObject({ code: 0, err: '' });
  await h.loom(['cancel', atLimit.out.trim()]);
});
