/**
 * The CLI's protobuf functions made one at a time (src/cli/lazy-codecs.ts) are protobufjs's own: for
 * every message type of Temporal's API (the full root, as the worker loads it), each of encode,
 * decode, verify, fromObject and toObject has, once first called, the source protobufjs's setup
 * compiles, and answers as it does; a type's other functions stay unmade until called. Another major
 * version of protobufjs keeps its own setup.
 */
import * as fs from 'fs';
import * as protobuf from 'protobufjs/light';
import { codecsAreLazy, makeCodecsLazily, SETUP_FOR_MAJOR } from '../../src/cli/lazy-codecs';

const FUNCTIONS = ['encode', 'decode', 'verify', 'fromObject', 'toObject'] as const;

/** A fresh root of Temporal's API from @temporalio/proto's definition (the module builds a shared one once). */
function temporalRoot(): protobuf.Root {
  const source = fs.readFileSync(require.resolve('@temporalio/proto/protos/json-module.js'), 'utf8');
  const start = source.indexOf('.addJSON(') + '.addJSON('.length;
  const namespaces = new Function(`return ${source.slice(start, source.lastIndexOf('});') + 1)}`)() as Record<string, protobuf.AnyNestedObject>;
  return new protobuf.Root().addJSON(namespaces) as protobuf.Root;
}

function messageTypes(ns: protobuf.NamespaceBase, out: protobuf.Type[] = []): protobuf.Type[] {
  for (const n of ns.nestedArray) {
    if (n instanceof protobuf.Type) out.push(n);
    if (n instanceof protobuf.Namespace) messageTypes(n, out);
  }
  return out;
}

/** Calls each function once with an empty message (made then, even when the call throws): its source and what it answered. */
function exercise(t: protobuf.Type): Record<string, { source: string; answer: string }> {
  const calls: Record<(typeof FUNCTIONS)[number], () => unknown> = {
    encode: () => Buffer.from(t.encode(t.create({})).finish()).toString('hex'),
    decode: () => t.decode(Buffer.alloc(0)),
    verify: () => t.verify({}),
    fromObject: () => t.fromObject({}),
    toObject: () => t.toObject(t.create({}), { defaults: true }),
  };
  const seen: Record<string, { source: string; answer: string }> = {};
  for (const f of FUNCTIONS) {
    let answer: string;
    try {
      answer = JSON.stringify(calls[f]());
    } catch (e) {
      answer = `threw ${(e as Error).message}`;
    }
    seen[f] = { source: String((t as unknown as Record<string, unknown>)[f]), answer };
  }
  return seen;
}

test(`another major version than ${SETUP_FOR_MAJOR} keeps protobufjs's own setup`, () => {
  const own = protobuf.Type.prototype.setup;
  expect(makeCodecsLazily('7.5.3')).toBe(false);
  expect(makeCodecsLazily('')).toBe(false); // a version that could not be read
  expect(codecsAreLazy()).toBe(false);
  expect(protobuf.Type.prototype.setup).toBe(own);
});

test("each function of every Temporal message type is protobufjs's own, made at its first call", () => {
  const eager = temporalRoot();
  const types = messageTypes(eager);
  expect(types.length).toBeGreaterThan(1000);
  const before = new Map(types.map((t) => [t.fullName, exercise(t)]));

  expect(makeCodecsLazily()).toBe(true);
  expect(codecsAreLazy()).toBe(true);
  const lazy = temporalRoot();
  const response = lazy.lookupType('temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse');
  // Decoding an answer makes its decode and no other function of the type.
  response.decode(Buffer.alloc(0));
  const made = (t: protobuf.Type, f: string) => String((t as unknown as Record<string, unknown>)[f]).startsWith('function firstCall');
  expect(FUNCTIONS.filter((f) => made(response, f))).toEqual(['encode', 'verify', 'fromObject', 'toObject']);

  const differ: string[] = [];
  for (const t of messageTypes(lazy)) {
    const after = exercise(t);
    for (const f of FUNCTIONS) {
      const was = before.get(t.fullName)![f];
      if (after[f].source !== was.source || after[f].answer !== was.answer) differ.push(`${t.fullName}.${f}`);
    }
  }
  expect(differ).toEqual([]);
});

test('a message encoded by the lazy functions decodes to the same message', () => {
  makeCodecsLazily();
  const t = temporalRoot().lookupType('temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse');
  const message = t.fromObject({
    workflowExecutionInfo: { execution: { workflowId: 'run-1', runId: 'r' }, type: { name: 'agfReactWorkflow' }, status: 2, historyLength: 12, startTime: { seconds: 1700000000, nanos: 5 } },
    pendingActivities: [{ activityId: '1', activityType: { name: 'callModel' }, attempt: 3, lastFailure: { message: 'store down' } }],
  });
  const back = t.toObject(t.decode(t.encode(message).finish()), { longs: String });
  expect(back).toEqual(t.toObject(message, { longs: String }));
  expect(back.workflowExecutionInfo.execution.workflowId).toBe('run-1');
  expect(back.pendingActivities[0].lastFailure.message).toBe('store down');
});
