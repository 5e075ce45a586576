import { tracingConfigOf } from '../../src/telemetry/config';
import { runSpanId, runTraceId } from '../../src/telemetry/trace-ids';

describe('deterministic run trace ids (decision 246)', () => {
  it('are valid W3C ids, stable for a run and different between runs', () => {
    const t = runTraceId('wf-1', 'run-a');
    const s = runSpanId('wf-1', 'run-a');
    expect(t).toMatch(/^[0-9a-f]{32}$/);
    expect(s).toMatch(/^[0-9a-f]{16}$/);
    expect(t).not.toMatch(/^0+$/);
    expect(runTraceId('wf-1', 'run-a')).toBe(t);
    expect(runSpanId('wf-1', 'run-a')).toBe(s);
    expect(runTraceId('wf-1', 'run-b')).not.toBe(t);
    expect(runTraceId('wf-2', 'run-a')).not.toBe(t);
    expect(t.slice(0, 16)).not.toBe(s);
  });
});

describe('tracingConfigOf', () => {
  it('emits nothing unless enabled is true and the exporter is not none', () => {
    expect(tracingConfigOf(undefined)).toBeUndefined();
    expect(tracingConfigOf({ tracing: { endpoint: 'http://127.0.0.1:1/v1/traces' } })).toBeUndefined();
    expect(tracingConfigOf({ tracing: { enabled: false, endpoint: 'http://127.0.0.1:1/v1/traces' } })).toBeUndefined();
    expect(tracingConfigOf({ tracing: { enabled: true, exporter: 'none' } })).toBeUndefined();
  });

  it('applies the defaults: otlp, every run, inputs and tool args off, outputs on, results redacted, context propagated', () => {
    expect(tracingConfigOf({ tracing: { enabled: true, endpoint: ' http://127.0.0.1:4318/v1/traces ' } })).toEqual({
      exporter: 'otlp',
      endpoint: 'http://127.0.0.1:4318/v1/traces',
      sampling_rate: 1,
      include_model_inputs: false,
      include_model_outputs: true,
      include_tool_args: 'none',
      include_tool_results: 'redacted',
      include_kb_chunks: false,
      propagate_context: true,
      auth: { type: 'none' },
      headers: {},
      protocol: 'http/json',
    });
  });

  it('reads the switches and the auth block as declared', () => {
    const cfg = tracingConfigOf({
      tracing: {
        enabled: true, exporter: 'console', sampling_rate: 0.1, include_model_inputs: true, include_model_outputs: false,
        include_tool_args: 'full', include_tool_results: 'none', include_kb_chunks: true, propagate_context: false, auth: { type: 'bearer', credentials_ref: 'otel-token' },
      },
    });
    expect(cfg).toMatchObject({
      exporter: 'console', sampling_rate: 0.1, include_model_inputs: true, include_model_outputs: false,
      include_tool_args: 'full', include_tool_results: 'none', include_kb_chunks: true, propagate_context: false, auth: { type: 'bearer', credentials_ref: 'otel-token' },
    });
    expect(cfg?.endpoint).toBeUndefined();
  });
});
