/** The CLI's reading of a run's pending activities (src/operator/waiting.ts): raw describe() fields to sentences. */
import { pendingView, waitingFromDescription } from '../../src/operator/waiting';

const json = (v: unknown) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(v)) });
const ts = (iso: string) => ({ seconds: { toNumber: () => Date.parse(iso) / 1000 }, nanos: 0 });

test('a pending activity retried by Temporal: its last failure, attempt and next attempt', () => {
  const v = pendingView({
    activityType: { name: 'modelTurn' },
    attempt: 4,
    lastFailure: { message: '429 rate limited by http://127.0.0.1:9/v1/chat/completions (model m)', applicationFailureInfo: { type: 'ModelRateLimited' } },
    lastAttemptCompleteTime: ts('2026-11-26T12:03:00Z'),
    nextAttemptScheduleTime: ts('2026-11-26T12:03:10Z'),
  });
  expect(v).toEqual({
    activityType: 'modelTurn',
    attempt: 4,
    lastFailure: { type: 'ModelRateLimited', message: '429 rate limited by http://127.0.0.1:9/v1/chat/completions (model m)' },
    lastFailureAtMs: Date.parse('2026-11-26T12:03:00Z'),
    nextAttemptAtMs: Date.parse('2026-11-26T12:03:10Z'),
    heartbeat: undefined,
  });
});

test('an activity waiting inside itself: its plain-JSON heartbeat; a sealed (encrypted) heartbeat is not read', () => {
  const waiting = { waiting: { what: 'the store postgres://loom@db:5432/loomstore', since: '2026-11-26T12:01:07Z', attempt: 6, error: 'down' } };
  const lines = waitingFromDescription({ raw: { pendingActivities: [{ activityType: { name: 'runTool' }, attempt: 1, heartbeatDetails: { payloads: [json(waiting)] } }] } });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^waiting for the store postgres:\/\/loom@db:5432\/loomstore \(unreachable since \d\d:\d\d:\d\d, attempt 6\): down$/);
  const sealed = { metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from('xx') };
  expect(waitingFromDescription({ raw: { pendingActivities: [{ attempt: 1, heartbeatDetails: { payloads: [sealed] } }] } })).toEqual([]);
  expect(waitingFromDescription({ raw: {} })).toEqual([]);
});
