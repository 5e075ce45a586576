/**
 * OTEL_EXPORTER_OTLP_PROTOCOL picks the exporter: spans, log records and metrics configured only
 * through OTEL_* variables reach a local OTLP/HTTP receiver as protobuf bodies (decoded with the
 * OTLP message types the OpenTelemetry transformer ships) and a local OTLP gRPC receiver
 * (@grpc/grpc-js serving the collector services), both on 127.0.0.1.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as grpc from '@grpc/grpc-js';
import { AgentLogs } from '../../src/telemetry/logs';
import { AgentMetrics } from '../../src/telemetry/metrics';
import { readOtelEnv } from '../../src/telemetry/otel-env';
import { SpanExporters } from '../../src/telemetry/span-exporters';
import { tracingConfigOf } from '../../src/telemetry/config';
import { compileAgent, scripted } from '../helpers/definitions';
import { until } from '../helpers/wait';

// The generated OTLP message classes (protobufjs) of @opentelemetry/otlp-transformer.
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root') as { opentelemetry: { proto: { collector: Record<Signal, { v1: Record<string, ProtoType> }> } } };
type Signal = 'trace' | 'logs' | 'metrics';
interface ProtoType { decode(b: Uint8Array): unknown; encode(m: object): { finish(): Uint8Array }; toObject(m: unknown, o?: object): Record<string, unknown> }
const MESSAGE: Record<Signal, { req: string; res: string; service: string }> = {
  trace: { req: 'ExportTraceServiceRequest', res: 'ExportTraceServiceResponse', service: 'TraceService' },
  logs: { req: 'ExportLogsServiceRequest', res: 'ExportLogsServiceResponse', service: 'LogsService' },
  metrics: { req: 'ExportMetricsServiceRequest', res: 'ExportMetricsServiceResponse', service: 'MetricsService' },
};
const decode = (signal: Signal, body: Uint8Array): Record<string, unknown> => {
  const t = root.opentelemetry.proto.collector[signal].v1[MESSAGE[signal].req];
  return t.toObject(t.decode(body), { longs: String, bytes: String });
};

interface Received { signal: Signal; path?: string; contentType?: string; headers: Record<string, unknown>; body: Record<string, unknown> }
const names = (r: Received[]): string[] => JSON.stringify(r.map((x) => x.body)).match(/"name":"[^"]+"/g) ?? [];

const { agent } = compileAgent({ agent_id: 'protocol-agent', model: scripted({ turns: [{ content: 'ok' }] }) });
const run = { workflowId: 'wf-protocols', runId: 'run-1' };

/** Emits one span, one log record and one metric through the exporters the variables configure, then flushes. */
async function emitAll(env: NodeJS.ProcessEnv): Promise<void> {
  const otel = readOtelEnv(env);
  expect(otel.problems).toEqual([]);
  const log = (m: string) => { throw new Error(`unexpected telemetry log: ${m}`); };
  const spans = new SpanExporters({ env, resource: otel.resource, log, logOnce: log, scheduledDelayMillis: 10 });
  const logs = new AgentLogs(log, log, env, otel);
  const metrics = new AgentMetrics(log, log, env, otel);
  const out = spans.for(agent, tracingConfigOf(agent.observability, { env: otel })!);
  out!.tracer.startSpan('agent.protocol_check').end();
  logs.emit(agent, run, 'info', 'run.start', { input_chars: 2 });
  metrics.runEnded(agent, 'success', 5, 1, 2);
  await Promise.all([spans.shutdown(), logs.shutdown(), metrics.shutdown()]);
}

test('http/protobuf: traces, logs and metrics are POSTed as application/x-protobuf to <base>/v1/<signal>, with the headers', async () => {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const signal = ({ '/v1/traces': 'trace', '/v1/logs': 'logs', '/v1/metrics': 'metrics' } as Record<string, Signal>)[req.url ?? ''];
      if (signal) got.push({ signal, path: req.url, contentType: req.headers['content-type'], headers: req.headers, body: decode(signal, Buffer.concat(chunks)) });
      res.writeHead(signal ? 200 : 404, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await emitAll({ OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_HEADERS: 'x-team=loom' });
    await until(() => ['trace', 'logs', 'metrics'].every((s) => got.some((g) => g.signal === s)), 'a request of each signal');
    for (const g of got) {
      expect(g.contentType).toBe('application/x-protobuf');
      expect(g.headers['x-team']).toBe('loom');
    }
    expect(names(got)).toEqual(expect.arrayContaining(['"name":"agent.protocol_check"', '"name":"agent.run.count"']));
    expect(JSON.stringify(got.find((g) => g.signal === 'logs')!.body)).toContain('run.start');
  } finally {
    server.close();
  }
});

test('grpc: traces, logs and metrics reach the collector services of a gRPC receiver at the bare endpoint, headers as metadata', async () => {
  const got: Received[] = [];
  const server = new grpc.Server();
  for (const signal of ['trace', 'logs', 'metrics'] as const) {
    const m = MESSAGE[signal];
    const res = root.opentelemetry.proto.collector[signal].v1[m.res];
    server.addService({
      Export: {
        path: `/opentelemetry.proto.collector.${signal}.v1.${m.service}/Export`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (x: Buffer) => x,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: () => Buffer.from(res.encode({}).finish()),
        responseDeserialize: (b: Buffer) => b,
      },
    }, {
      Export: (call: grpc.ServerUnaryCall<Buffer, unknown>, done: grpc.sendUnaryData<unknown>) => {
        got.push({ signal, headers: call.metadata.getMap(), body: decode(signal, call.request) });
        done(null, {});
      },
    });
  }
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  try {
    await emitAll({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_HEADERS: 'x-team=loom' });
    await until(() => ['trace', 'logs', 'metrics'].every((s) => got.some((g) => g.signal === s)), 'an Export call of each signal');
    for (const g of got) expect(g.headers['x-team']).toBe('loom');
    expect(names(got)).toEqual(expect.arrayContaining(['"name":"agent.protocol_check"', '"name":"agent.run.count"']));
    expect(JSON.stringify(got.find((g) => g.signal === 'logs')!.body)).toContain('run.start');
  } finally {
    server.forceShutdown();
  }
});
