/**
 * The CLI's Temporal client tracing loads the OTLP exporters (every protocol's, gRPC's included) only
 * when spans go somewhere: a fresh Node process that makes the client interceptors without OTEL_*
 * variables never loads them; with a trace destination, the first export loads them.
 */
import { execFile } from 'child_process';
import * as path from 'path';
import { promisify } from 'util';

const ROOT = path.join(__dirname, '..', '..');

/** Whether the exporters' module is loaded after the script ran, in a fresh process with `env`. */
async function exportersLoaded(script: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const program = `
    const { temporalClientInterceptors, flushClientTracing, TemporalTracing } = require('./src/telemetry/temporal-tracing');
    (async () => {
      ${script}
      const loaded = Object.keys(require.cache).some((k) => k.includes('exporter-trace-otlp-grpc') || k.endsWith(require('path').join('telemetry', 'otlp-exporters.ts')));
      process.stdout.write(JSON.stringify({ loaded }));
      process.exit(0);
    })();`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const { stdout } = await promisify(execFile)(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), '-e', program], { cwd: ROOT, env: { ...clean, ...env } });
  return (JSON.parse(stdout) as { loaded: boolean }).loaded;
}

jest.setTimeout(60_000);

test('without OTEL_* variables, the client interceptors load no exporter', async () => {
  expect(await exportersLoaded('temporalClientInterceptors(); await flushClientTracing();', {})).toBe(false);
});

test('with a trace destination, the first exported span loads the exporters', async () => {
  // 127.0.0.1:9 refuses the connection: the export fails (logged), after loading the exporter.
  const script = `
    const t = new TemporalTracing({ log: () => undefined, scheduledDelayMillis: 10 });
    t.tracer.startSpan('probe').end();
    await t.forceFlush();`;
  expect(await exportersLoaded(script, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBe(true);
});
