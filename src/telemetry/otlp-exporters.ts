/**
 * The OTLP exporter of each signal for each protocol of the OTLP exporter specification: `http/json`
 * (`@opentelemetry/exporter-*-otlp-http`), `http/protobuf` (`-otlp-proto`) and `grpc`
 * (`-otlp-grpc`, headers sent as gRPC metadata; an `http://` endpoint is a plaintext channel,
 * `https://` a TLS one). The endpoint is already resolved (otel-env.ts: a signal path for the HTTP
 * protocols, the bare endpoint for gRPC).
 */
import { Metadata } from '@grpc/grpc-js';
import { OTLPLogExporter as LogsGrpc } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as LogsJson } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as LogsProto } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as MetricsGrpc } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as MetricsJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as MetricsProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as TracesGrpc } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as TracesJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as TracesProto } from '@opentelemetry/exporter-trace-otlp-proto';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OtlpProtocol } from './otel-env';

export interface OtlpTarget {
  protocol: OtlpProtocol;
  url: string;
  headers: Record<string, string>;
  timeoutMillis: number;
}

function grpcOptions(t: OtlpTarget): { url: string; metadata: Metadata; timeoutMillis: number } {
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(t.headers)) metadata.set(k.toLowerCase(), v);
  return { url: t.url, metadata, timeoutMillis: t.timeoutMillis };
}

export function otlpSpanExporter(t: OtlpTarget): SpanExporter {
  if (t.protocol === 'grpc') return new TracesGrpc(grpcOptions(t));
  const opts = { url: t.url, headers: t.headers, timeoutMillis: t.timeoutMillis };
  return t.protocol === 'http/protobuf' ? new TracesProto(opts) : new TracesJson(opts);
}

export function otlpMetricExporter(t: OtlpTarget): PushMetricExporter {
  if (t.protocol === 'grpc') return new MetricsGrpc(grpcOptions(t));
  const opts = { url: t.url, headers: t.headers, timeoutMillis: t.timeoutMillis };
  return t.protocol === 'http/protobuf' ? new MetricsProto(opts) : new MetricsJson(opts);
}

export function otlpLogExporter(t: OtlpTarget): LogRecordExporter {
  if (t.protocol === 'grpc') return new LogsGrpc(grpcOptions(t));
  const opts = { url: t.url, headers: t.headers, timeoutMillis: t.timeoutMillis };
  return t.protocol === 'http/protobuf' ? new LogsProto(opts) : new LogsJson(opts);
}
