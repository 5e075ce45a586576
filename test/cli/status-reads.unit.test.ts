/**
 * `loom status` reads a run with two calls, its Temporal description and its `status` query
 * (src/operator/run-status.ts). They are independent, so both go out before either answers: the
 * query's wait on a worker overlaps the description's round trip. A client whose calls answer only
 * when the test says so shows the order; a run that does not exist still fails with the
 * description's error, after the query has settled (no call outlives the command's connection).
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { readRunStatus } from '../../src/operator/run-status';
import type { RunStatus } from '../../src/shared/contract';

interface Deferred<T> { promise: Promise<T>; resolve(v: T): void; reject(e: Error): void }
function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

/** A Client whose handle's describe and query wait for the test; `calls` lists them in the order they were made. */
function fakeClient() {
  const describe = deferred<WorkflowExecutionDescription>();
  const query = deferred<RunStatus>();
  const calls: string[] = [];
  const handle = {
    describe: () => { calls.push('describe'); return describe.promise; },
    query: () => { calls.push('query'); return query.promise; },
  };
  const client = { workflow: { getHandle: () => handle } } as unknown as Client;
  return { client, calls, describe, query };
}

const description = {
  type: 'agentloomReact', status: { name: 'COMPLETED' }, startTime: new Date(0), closeTime: new Date(1), raw: { pendingActivities: [] },
} as unknown as WorkflowExecutionDescription;

/** Lets every pending promise callback run (the reads start on microtasks after an import). */
const settle = () => new Promise((r) => setImmediate(r));

test('the description and the status query are both sent before either answers', async () => {
  const c = fakeClient();
  const read = readRunStatus(c.client, 'run-1');
  await settle();
  expect(c.calls.sort()).toEqual(['describe', 'query']);
  c.query.resolve({ state: 'completed' } as RunStatus);
  c.describe.resolve(description);
  const v = await read;
  expect(v.status).toEqual({ state: 'completed' });
  expect(v.out).toMatchObject({ workflow_id: 'run-1', temporal_status: 'COMPLETED', type: 'agentloomReact', state: 'completed' });
});

test('a query that fails leaves the description and says why there is no run status', async () => {
  const c = fakeClient();
  const read = readRunStatus(c.client, 'run-2');
  await settle();
  c.describe.resolve(description);
  c.query.reject(new Error('no poller seen for task queue'));
  const v = await read;
  expect(v.status).toBeUndefined();
  expect(v.queryError).toBe('no poller seen for task queue');
  expect(v.out).toMatchObject({ workflow_id: 'run-2', temporal_status: 'COMPLETED' });
});

test('a run that cannot be described fails with that error, only once the query has settled', async () => {
  const c = fakeClient();
  const read = readRunStatus(c.client, 'missing');
  let done = false;
  read.catch(() => undefined).finally(() => { done = true; });
  await settle();
  c.describe.reject(new Error('workflow not found for ID: missing'));
  await settle();
  expect(done).toBe(false); // the query is still open
  c.query.reject(new Error('workflow not found for ID: missing'));
  await expect(read).rejects.toThrow('workflow not found for ID: missing');
});
