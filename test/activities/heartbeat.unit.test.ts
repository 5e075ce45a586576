import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { FIRST_HEARTBEAT_MS, withHeartbeat } from '../../src/activities/react-tools';

function counting(): { env: MockActivityEnvironment; beats: () => number } {
  const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') });
  let n = 0;
  env.on('heartbeat', () => {
    n += 1;
  });
  return { env, beats: () => n };
}

test('a call that ends within the first second sends no heartbeat (no round trip to the server)', async () => {
  const { env, beats } = counting();
  expect(await env.run(() => withHeartbeat(async () => 'quick'))).toBe('quick');
  expect(beats()).toBe(0);
});

test('a longer call heartbeats from the first second on', async () => {
  const { env, beats } = counting();
  let seen = 0;
  const started = Date.now();
  // The call runs until its first heartbeat was sent (the behaviour under test), then ends.
  await env.run(() =>
    withHeartbeat(
      () =>
        new Promise<void>((resolve) => {
          env.on('heartbeat', () => {
            seen = beats();
            resolve();
          });
        }),
    ),
  );
  const took = Date.now() - started;
  expect(seen).toBe(1);
  expect(took).toBeGreaterThanOrEqual(FIRST_HEARTBEAT_MS - 20);
});
