/** The input checks made before a run starts (depth without recursion, size) and the CLI's one-line error with its causes. */
import { ServiceError } from '@temporalio/client';
import { depthRefusal, inputBytes, MAX_INPUT_DEPTH, nestsDeeperThan } from '../../src/operator/input-limits';
import { describeError } from '../../src/operator/errors';

function nested(n: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

test('depth is measured without recursion: 20,000 levels are refused naming the depth, the limit itself passes', () => {
  expect(nestsDeeperThan(nested(20_000), MAX_INPUT_DEPTH)).toBe(true);
  expect(depthRefusal(nested(20_000))).toContain(`deeper than ${MAX_INPUT_DEPTH} levels`);
  expect(depthRefusal(nested(MAX_INPUT_DEPTH))).toBeUndefined();
  expect(depthRefusal(nested(MAX_INPUT_DEPTH + 1))).toBeDefined();
  expect(nestsDeeperThan('text', 0)).toBe(false);
  expect(nestsDeeperThan({}, 0)).toBe(true);
  expect(nestsDeeperThan([1, [2, [3]]], 3)).toBe(false);
  expect(nestsDeeperThan([1, [2, [3]]], 2)).toBe(true);
});

test('size is the UTF-8 JSON the payload converter writes', () => {
  expect(inputBytes({ q: 'é' })).toBe(Buffer.byteLength('{"q":"é"}'));
  expect(inputBytes(null)).toBe(4);
});

test('a Temporal client error is printed with its root cause, wrappers that repeat it once', () => {
  const grpc = Object.assign(new Error('3 INVALID_ARGUMENT: BlobSizeLimitError: blob data size exceeds the limit.'), { code: 3, details: 'BlobSizeLimitError: blob data size exceeds the limit.' });
  expect(describeError(new ServiceError('Failed to start Workflow', { cause: grpc }))).toBe('Failed to start Workflow: BlobSizeLimitError: blob data size exceeds the limit.');
  expect(describeError(new Error('cannot reach Temporal at x', { cause: new Error('cannot reach Temporal at x') }))).toBe('cannot reach Temporal at x');
  expect(describeError(new RangeError('Maximum call stack size exceeded'))).toBe('Maximum call stack size exceeded');
  expect(describeError('plain')).toBe('plain');
  const loop: Error & { cause?: unknown } = new Error('a');
  loop.cause = loop;
  expect(describeError(loop)).toBe('a');
});
