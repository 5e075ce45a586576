/** The pure rules of waiting out a dependency's outage (src/runtime/dependency-wait.ts). */
import { classifyFailure } from '../../src/activities/errors';
import {
  backoffMs,
  DEFAULT_MAX_WAIT_MS,
  humanDuration,
  isOutageType,
  parseMaxWait,
  redactSecrets,
  waitExhausted,
  waitingReason,
  waitingReasons,
} from '../../src/runtime/dependency-wait';

const ep = 'http://127.0.0.1:9/v1/chat/completions (model m)';
const hhmmss = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const at = (t: string) => Date.parse(`2026-11-26T${t}Z`);

describe('which failures are outages', () => {
  test('what classifyFailure calls retryable for a model is an outage; what it refuses is not', () => {
    const retryable = [
      classifyFailure({ kind: 'connection', endpoint: ep }),
      classifyFailure({ kind: 'timeout', endpoint: ep }),
      classifyFailure({ kind: 'http', status: 503, endpoint: ep }),
      classifyFailure({ kind: 'http', status: 500, endpoint: ep }),
      classifyFailure({ kind: 'http', status: 429, headers: { 'retry-after': '3' }, endpoint: ep }),
      classifyFailure({ kind: 'http', status: 408, endpoint: ep }),
      classifyFailure({ kind: 'http', status: 409, endpoint: ep }),
    ];
    for (const v of retryable) expect({ type: v.type, outage: isOutageType(v.type), retryable: v.retryable }).toEqual({ type: v.type, outage: true, retryable: true });
    for (const status of [400, 401, 403, 404, 422]) {
      const v = classifyFailure({ kind: 'http', status, endpoint: ep });
      expect({ status, outage: isOutageType(v.type), retryable: v.retryable }).toEqual({ status, outage: false, retryable: false });
    }
  });
  test('an unreachable store is; a missing blob, a tool failure, a policy refusal or a plain error is not', () => {
    expect(isOutageType('StoreUnavailable')).toBe(true);
    for (const t of ['BlobNotFound', 'StoreCorrupt', 'ToolHttp503', 'ToolConnectionError', 'LimitExceeded', 'Error', 'TypeError', '', undefined, null]) expect(isOutageType(t)).toBe(false);
  });
});

describe('backoff and ceiling', () => {
  test('doubles from 1 s and stops growing at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((a) => backoffMs(a))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(backoffMs(0)).toBe(1000);
  });
  test('LOOM_DEPENDENCY_MAX_WAIT: 24 h by default, units s/m/h/d or plain seconds, nonsense refused', () => {
    expect(parseMaxWait(undefined)).toBe(DEFAULT_MAX_WAIT_MS);
    expect(DEFAULT_MAX_WAIT_MS).toBe(24 * 3600 * 1000);
    expect(parseMaxWait('')).toBe(DEFAULT_MAX_WAIT_MS);
    expect(parseMaxWait('90')).toBe(90_000);
    expect(parseMaxWait('90s')).toBe(90_000);
    expect(parseMaxWait('30m')).toBe(1_800_000);
    expect(parseMaxWait('6h')).toBe(21_600_000);
    expect(parseMaxWait('2D')).toBe(172_800_000);
    for (const bad of ['soon', '-5', '0', '5w', '1h30m']) expect(() => parseMaxWait(bad)).toThrow(/LOOM_DEPENDENCY_MAX_WAIT must be a positive duration .* got '/);
  });
  test('a wait is over once the ceiling has passed since it began', () => {
    expect(waitExhausted(0, 59_999, 60_000)).toBe(false);
    expect(waitExhausted(0, 60_000, 60_000)).toBe(true);
    expect(humanDuration(DEFAULT_MAX_WAIT_MS)).toBe('1d');
    expect(humanDuration(7_200_000)).toBe('2h');
    expect(humanDuration(1_500_000)).toBe('25m');
    expect(humanDuration(40_000)).toBe('40s');
  });
});

describe('the waiting sentence', () => {
  test('a store waited out inside an activity (heartbeat): since when, which attempt, never the password', () => {
    const s = waitingReason(
      {
        activityType: 'runTool',
        attempt: 1,
        heartbeat: { waiting: { what: 'the store postgres://loom@db:5432/loomstore', since: '2026-11-26T12:01:07Z', attempt: 6, error: 'the store postgres://loom:hunter2@db:5432/loomstore is unreachable: connect ECONNREFUSED', next: '2026-11-26T12:01:39Z' } },
      },
      hhmmss,
    );
    expect(s).toBe('waiting for the store postgres://loom@db:5432/loomstore (unreachable since 12:01:07, attempt 6, next at 12:01:39): the store postgres://loom:***@db:5432/loomstore is unreachable: connect ECONNREFUSED');
    expect(s).not.toContain('hunter2');
  });
  test('a store retried by Temporal (last failure)', () => {
    const s = waitingReason(
      { activityType: 'modelTurn', attempt: 6, lastFailure: { type: 'StoreUnavailable', message: 'the store postgres://loom@db:5432/loomstore is unreachable: connect ECONNREFUSED 127.0.0.1:5432' }, lastFailureAtMs: at('12:01:07'), nextAttemptAtMs: at('12:01:23') },
      hhmmss,
    );
    expect(s).toBe('waiting for the store postgres://loom@db:5432/loomstore (unreachable, attempt 5 failed at 12:01:07; retrying at 12:01:23): connect ECONNREFUSED 127.0.0.1:5432');
  });
  test('a model endpoint answering 429 or 503, refusing connections, with keys redacted', () => {
    const rl = waitingReason({ attempt: 4, lastFailure: { type: 'ModelRateLimited', message: `429 rate limited by ${ep}, retry after 30000 ms (slow down, key sk-abcdefghijkl)` }, nextAttemptAtMs: at('12:03:10') }, hhmmss);
    expect(rl).toBe(`model endpoint answered 429, retrying at 12:03:10 (attempt 4): 429 rate limited by ${ep}, retry after 30000 ms (slow down, key [redacted])`);
    expect(waitingReason({ attempt: 2, lastFailure: { type: 'ModelHttp503', message: `503 from ${ep}: transient server error, will retry` }, nextAttemptAtMs: at('12:03:10') }, hhmmss)).toMatch(/^model endpoint answered 503, retrying at 12:03:10 \(attempt 2\): 503 from/);
    expect(waitingReason({ attempt: 3, lastFailure: { type: 'ModelConnectionError', message: `cannot connect to ${ep}` } }, hhmmss)).toBe(`model endpoint is unreachable, retrying (attempt 3): cannot connect to ${ep}`);
    expect(waitingReason({ attempt: 3, lastFailure: { type: 'ModelTimeout', message: `timeout calling ${ep}` } }, hhmmss)).toMatch(/^model endpoint did not answer in time, retrying \(attempt 3\)/);
  });
  test('an activity that runs normally, or fails for another reason, says nothing', () => {
    expect(waitingReasons([{ activityType: 'runTool', attempt: 1 }, { attempt: 2, lastFailure: { type: 'ModelHttp401', message: 'bad key' } }, { attempt: 2, heartbeat: { progress: 3 } }])).toEqual([]);
  });
  test('redaction: URL passwords, OpenAI-style keys, bearer tokens, password/key parameters', () => {
    expect(redactSecrets('postgres://loom:p@ss@db/x s3://AKIA:SECRET@bucket/p http://u:pw@h/v1')).not.toMatch(/p@ss|SECRET|:pw@/);
    expect(redactSecrets('Authorization: Bearer abcdefghijklmnop and sk-proj-1234567890')).toBe('Authorization: Bearer [redacted] and [redacted]');
    expect(redactSecrets('host=db password=hunter2 sslmode=disable ?api_key=xyz&x=1')).toBe('host=db password=*** sslmode=disable ?api_key=***&x=1');
  });
});
