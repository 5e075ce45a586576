/**
 * The CLI checks a payload with the schema the run's handler uses, before it connects: a misfit is a
 * usage error (exit 2) naming the update, what was wrong and the shape expected. No server: the
 * address points at a closed port, so a command that got as far as sending would fail otherwise.
 */
import { execFile } from 'child_process';
import * as path from 'path';
import { promisify } from 'util';
import { ApproveArgsSchema, PAYLOAD_SHAPES } from '../../src/shared/contract';
import { payloadToSend } from '../../src/operator/payloads';
import { UsageError } from '../../src/operator/errors';

const exec = promisify(execFile);
const LOOM = path.resolve(__dirname, '..', '..', 'bin', 'loom.js');

async function loom(...args: string[]): Promise<{ code: number; err: string }> {
  const env = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
  try {
    await exec(process.execPath, [LOOM, ...args], { env, timeout: 60_000 });
    return { code: 0, err: '' };
  } catch (e) {
    const x = e as { code: number; stderr: string };
    return { code: x.code, err: x.stderr };
  }
}

test.each([
  [['send', 'some-session', '   '], /^loom send: sessionMessage: text: a session message needs non-empty text; expected \{"text": non-empty string\}/],
  [['approve', 'run-1', ''], /^loom approve: approveCall: call_id: String must contain at least 1 character\(s\); expected \{"call_id": string/],
  [['reject', 'run-1', 'c1', '--reason', '   '], /^loom reject: rejectCall: reason: reject needs a reason .*; expected \{"call_id": string, "reason": non-empty string/],
])('loom %j is a usage error before anything is sent', async (args, message) => {
  const r = await loom(...args);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(message);
});

test('payloadToSend returns what fits and throws a UsageError otherwise', () => {
  expect(payloadToSend(ApproveArgsSchema, { call_id: 'c1' }, PAYLOAD_SHAPES.approve, 'approveCall')).toEqual({ call_id: 'c1' });
  expect(() => payloadToSend(ApproveArgsSchema, { call_id: 'c1', args: 'x' }, PAYLOAD_SHAPES.approve, 'approveCall')).toThrow(UsageError);
});
