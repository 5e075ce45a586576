import { AGENT_FIELDS, unenforcedFields } from '../../src/compiler/enforcement';

describe('observability.tracing and metrics in the enforcement inventory (issue 11.8)', () => {
  const tracing = {
    enabled: true, exporter: 'otlp', endpoint: 'https://otel.internal/v1/traces', sampling_rate: 0.5,
    include_model_inputs: false, include_model_outputs: true, include_tool_args: 'redacted', include_tool_results: 'redacted',
    include_kb_chunks: false, auth: { type: 'bearer', credentials_ref: 'otel-token' },
  };

  it('the fields the worker acts on are enforced; logs fields are warned only when nothing is sent', () => {
    for (const k of ['enabled', 'exporter', 'endpoint', 'sampling_rate', 'include_model_inputs', 'include_model_outputs', 'include_tool_args', 'include_tool_results', 'include_kb_chunks', 'propagate_context', 'auth.credentials_ref']) {
      expect(AGENT_FIELDS[`observability.tracing.${k}`].status).toBe('enforced');
    }
    for (const k of ['enabled', 'exporter', 'endpoint', 'export_interval_seconds', 'custom_dimensions', 'auth.credentials_ref']) {
      expect(AGENT_FIELDS[`observability.metrics.${k}`].status).toBe('enforced');
    }
    expect(AGENT_FIELDS['observability.metrics.retention_days'].status).toBe('descriptive');
    expect(AGENT_FIELDS['observability.logs.level'].status).toBe('warned');
  });

  it('an enabled tracing section warns only for mtls (propagate_context is enforced, decision 287)', () => {
    expect(unenforcedFields({ observability: { tracing } })).toEqual([]);
    expect(unenforcedFields({ observability: { tracing: { ...tracing, propagate_context: true } } })).toEqual([]);
    const warned = unenforcedFields({ observability: { tracing: { ...tracing, propagate_context: true, auth: { type: 'mtls', credentials_ref: 'otel-cert' } } } });
    expect(warned.map((u) => u.fields)).toEqual([['observability.tracing.auth.type']]);
    expect(unenforcedFields({ observability: { tracing: { ...tracing, propagate_context: false } } })).toEqual([]);
    expect(unenforcedFields({ observability: { tracing: { ...tracing, enabled: false, propagate_context: true } } })).toEqual([]);
  });

  it('an enabled metrics section warns only for mtls; logs warn only when they would go nowhere', () => {
    const metrics = { enabled: true, endpoint: 'https://otel.internal/v1/metrics', export_interval_seconds: 60, retention_days: 30, custom_dimensions: ['agent_id'] };
    expect(unenforcedFields({ observability: { metrics } })).toEqual([]);
    expect(unenforcedFields({ observability: { metrics: { ...metrics, auth: { type: 'mtls', credentials_ref: 'c' } } } }).map((u) => u.fields)).toEqual([['observability.metrics.auth.type']]);
    expect(unenforcedFields({ observability: { logs: { enabled: true, level: 'info' } } }).map((u) => u.fields)).toEqual([['observability.logs.enabled', 'observability.logs.level']]);
    expect(unenforcedFields({ observability: { logs: { enabled: true, level: 'info', endpoint: 'https://otel.internal/v1/logs' } } })).toEqual([]);
    expect(unenforcedFields({ observability: { logs: { enabled: true, exporter: 'console', level: 'debug' } } })).toEqual([]);
    expect(unenforcedFields({ observability: { logs: { level: 'info' } } })).toEqual([]);
  });
});
