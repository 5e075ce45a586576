/**
 * The server commands load only what their calls need: `loom list` (a visibility list, no traced
 * call) loads the Temporal client and no OpenTelemetry, compiler or worker module; a traced call
 * (`loom status`, which describes the run) does load OpenTelemetry, so its spans and trace context
 * are as before, only loaded later.
 */
import { temporalAddress } from '../helpers/temporal';
import { loomLoads } from './loaded';

jest.setTimeout(120_000);

const server = () => ({ TEMPORAL_ADDRESS: temporalAddress() });

test('loom list loads the Temporal client and no telemetry, compiler or worker', async () => {
  const r = await loomLoads(['list', '--limit', '1'], server());
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  // zod comes with AgentloomClient's run contract (src/shared/contract.ts), a few ms; not held here.
  expect(r.heavy.filter((h) => h !== 'zod')).toEqual(['@temporalio/client']);
});

test('a traced call loads OpenTelemetry when it is made', async () => {
  const r = await loomLoads(['status', `no-such-run-${Date.now()}`], server());
  expect(r.err).toMatch(/no run with id no-such-run-/);
  expect(r.code).toBe(1);
  expect(r.heavy).toContain('OpenTelemetry');
  expect(r.heavy).not.toContain('@temporalio/worker (and its bundler)');
});
