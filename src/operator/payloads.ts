/**
 * The CLI checks what it is about to send a run with the same schema the run's handler checks it
 * with (src/shared/contract.ts, src/shared/payload-check.ts): a payload that does not fit is a
 * usage error, said before anything is sent, with the shape expected.
 */
import type { z } from 'zod';
import { checkPayload } from '../shared/payload-check';
import { UsageError } from './errors';

/** `value` when it fits `schema`; else a UsageError naming `what` (e.g. "approveCall"), the problem and the expected shape. */
export function payloadToSend<T>(schema: z.ZodType<T>, value: unknown, expected: string, what: string): T {
  const c = checkPayload(schema, value, expected);
  if (!c.ok) throw new UsageError(`${what}: ${c.problem}`);
  return c.value;
}
