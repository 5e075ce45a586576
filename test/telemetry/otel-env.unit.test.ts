/**
 * The OpenTelemetry environment variables and the tenant's telemetry block resolved into each
 * signal's destination (decisions 400-405): endpoints per signal or from the base with the signal
 * path, headers, protocol, service name and resource attributes, and the precedence between the
 * OTEL_* variables, the tenant and the agent.
 */
import { destinationOf, logsConfigOf, metricsConfigOf, platformOf, tracingConfigOf, type Platform } from '../../src/telemetry/config';
import { SpanExporters } from '../../src/telemetry/span-exporters';
import { compileAgent, scripted } from '../helpers/definitions';
import { agentEndpoint, parseKeyValues, readOtelEnv } from '../../src/telemetry/otel-env';

const platform = (env: NodeJS.ProcessEnv, tenant?: Platform['tenant']): Platform => ({ env: readOtelEnv(env), ...(tenant ? { tenant } : {}) });

describe('readOtelEnv', () => {
  it('appends the signal path to the base endpoint and uses a per-signal endpoint as-is', () => {
    const e = readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://m.example:9000/custom' });
    expect(e.signals.traces.endpoint).toBe('http://127.0.0.1:4318/v1/traces');
    expect(e.signals.logs.endpoint).toBe('http://127.0.0.1:4318/v1/logs');
    expect(e.signals.metrics.endpoint).toBe('https://m.example:9000/custom');
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/base/' }).signals.traces.endpoint).toBe('http://c:4318/base/v1/traces');
    expect(readOtelEnv({}).signals.traces.endpoint).toBeUndefined();
    expect(e.problems).toEqual([]);
  });

  it('reads URL-decoded headers, per-signal pairs overriding base ones', () => {
    const e = readOtelEnv({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=se%3Dcret, x-team=a', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=b' });
    expect(e.signals.traces.headers).toEqual({ 'api-key': 'se=cret', 'x-team': 'b' });
    expect(e.signals.metrics.headers).toEqual({ 'api-key': 'se=cret', 'x-team': 'a' });
  });

  it('skips a malformed pair and names its position, never its text', () => {
    const problems: string[] = [];
    expect(parseKeyValues('a=1,secretvalue,b=%E0%A4%A', 'OTEL_EXPORTER_OTLP_HEADERS', problems)).toEqual({ a: '1' });
    expect(problems).toEqual(['OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not a key=value pair (URL-encoded); it is skipped', 'OTEL_EXPORTER_OTLP_HEADERS: entry 3 is not a key=value pair (URL-encoded); it is skipped']);
    expect(problems.join(' ')).not.toContain('secretvalue');
  });

  it('reads the service name and resource attributes; OTEL_SERVICE_NAME wins over service.name in the attributes', () => {
    expect(readOtelEnv({}).resource).toEqual({ 'service.name': 'agentloom' });
    expect(readOtelEnv({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=x,team=a%20b' }).resource).toEqual({ 'service.name': 'x', 'deployment.environment': 'prod', team: 'a b' });
    expect(readOtelEnv({ OTEL_SERVICE_NAME: 'loom-eu', OTEL_RESOURCE_ATTRIBUTES: 'service.name=x' }).resource).toEqual({ 'service.name': 'loom-eu' });
  });

  it('speaks http/json, http/protobuf and grpc (per signal over the base variable); anything else is refused naming what is supported', () => {
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).signals.traces).toMatchObject({ protocol: 'http/json' });
    const pb = readOtelEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'grpc' });
    expect(pb.signals.traces.protocol).toBe('http/protobuf');
    expect(pb.signals.logs.protocol).toBe('grpc');
    expect(pb.problems).toEqual([]);
    const bad = readOtelEnv({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' });
    expect(bad.signals.traces.protocol).toBeUndefined();
    expect(bad.signals.traces.unsupported).toBe('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=thrift is not an OTLP protocol; supported: http/json, http/protobuf, grpc');
    expect(bad.signals.metrics.unsupported).toBeUndefined();
  });

  it('over grpc the base endpoint is used as-is (no signal path); over http it gets /v1/<signal>', () => {
    const e = readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' });
    expect(e.signals.traces.endpoint).toBe('http://127.0.0.1:4317');
    expect(e.signals.metrics.endpoint).toBe('http://127.0.0.1:4317/v1/metrics');
    expect(tracingConfigOf(undefined, platform({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, { endpoint: 'http://collector:4317' }))).toMatchObject({ endpoint: 'http://collector:4317', protocol: 'grpc' });
  });

  it('reports a base endpoint that is not an http(s) URL and honours OTEL_SDK_DISABLED and OTEL_<SIGNAL>_EXPORTER=none', () => {
    const e = readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318', OTEL_SDK_DISABLED: 'TRUE', OTEL_LOGS_EXPORTER: 'none' });
    expect(e.problems).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL; it is ignored']);
    expect(e.disabled).toBe(true);
    expect(e.signals.logs.off).toBe(true);
    expect(e.signals.traces.off).toBe(false);
  });
});

describe('an agent endpoint that is a bare base URL gets the signal path (decision 401)', () => {
  it('appends only when there is no path', () => {
    expect(agentEndpoint('http://127.0.0.1:4318', 'traces')).toBe('http://127.0.0.1:4318/v1/traces');
    expect(agentEndpoint('http://127.0.0.1:4318/', 'metrics')).toBe('http://127.0.0.1:4318/v1/metrics');
    expect(agentEndpoint('http://127.0.0.1:4318/otlp/spans', 'traces')).toBe('http://127.0.0.1:4318/otlp/spans');
    expect(tracingConfigOf({ tracing: { enabled: true, endpoint: 'http://c:4318' } })?.endpoint).toBe('http://c:4318/v1/traces');
  });
});

describe('precedence: OTEL_* variables, tenant telemetry, agent (decisions 402, 403)', () => {
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=k' };
  const tenant = { exporter: 'otlp', endpoint: 'https://tenant:4318', credentials_ref: 'otel-token' };

  it('OTEL_* alone turns every signal on for an agent that sets no switch, sending to the variables\' endpoints with their headers', () => {
    expect(tracingConfigOf(undefined, platform(env))).toMatchObject({ exporter: 'otlp', endpoint: 'http://env:4318/v1/traces', headers: { 'api-key': 'k' }, protocol: 'http/json', auth: { type: 'none' }, sampling_rate: 1 });
    expect(metricsConfigOf({}, platform(env))?.endpoint).toBe('http://env:4318/v1/metrics');
    expect(logsConfigOf({}, platform(env))?.endpoint).toBe('http://env:4318/v1/logs');
    expect(tracingConfigOf(undefined, platform({}))).toBeUndefined();
  });

  it('an agent turns a signal off with enabled: false or exporter: none; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn the default off', () => {
    expect(tracingConfigOf({ tracing: { enabled: false } }, platform(env, tenant))).toBeUndefined();
    expect(tracingConfigOf({ tracing: { exporter: 'none' } }, platform(env))).toBeUndefined();
    expect(tracingConfigOf({ tracing: { enabled: true, endpoint: 'http://a:1/v1/traces' } }, platform({ ...env, OTEL_SDK_DISABLED: 'true' }))).toBeUndefined();
    expect(tracingConfigOf(undefined, platform({ ...env, OTEL_TRACES_EXPORTER: 'none' }))).toBeUndefined();
    expect(metricsConfigOf(undefined, platform({ ...env, OTEL_TRACES_EXPORTER: 'none' }))).toBeDefined();
  });

  it('the tenant\'s collector wins over the variables and over an agent endpoint, which is reported as not followed; its credential is a bearer', () => {
    const cfg = tracingConfigOf({ tracing: { enabled: true, endpoint: 'http://elsewhere:4318/v1/traces', auth: { type: 'bearer', credentials_ref: 'mine' } } }, platform(env, tenant));
    expect(cfg).toMatchObject({ exporter: 'otlp', endpoint: 'https://tenant:4318/v1/traces', auth: { type: 'bearer', credentials_ref: 'otel-token' }, headers: { 'api-key': 'k' } });
    expect(cfg?.problem).toBe('its own traces endpoint is not followed: the tenant\'s telemetry sends to https://tenant:4318/v1/traces (an agent may narrow the tenant\'s telemetry, not redirect it)');
    expect(destinationOf({ enabled: true, endpoint: 'https://tenant:4318' }, 'traces', platform({}, tenant))?.problem).toBeUndefined();
    expect(tracingConfigOf(undefined, platform({}, tenant))?.endpoint).toBe('https://tenant:4318/v1/traces');
    expect(tracingConfigOf(undefined, platform({}, { exporter: 'none', endpoint: 'https://tenant:4318' }))).toBeUndefined();
  });

  it('an agent may lower the tenant\'s sampling rate, never raise it, and may print to the console', () => {
    const t = { ...tenant, sampling_rate: 0.5 };
    expect(tracingConfigOf({ tracing: { sampling_rate: 0.1 } }, platform({}, t))?.sampling_rate).toBe(0.1);
    expect(tracingConfigOf({ tracing: { sampling_rate: 1 } }, platform({}, t))?.sampling_rate).toBe(0.5);
    expect(tracingConfigOf({ tracing: { exporter: 'console' } }, platform({}, t))?.exporter).toBe('console');
  });

  it('without a tenant, an agent endpoint wins over the variables; with neither, otlp has no endpoint', () => {
    expect(tracingConfigOf({ tracing: { enabled: true, endpoint: 'http://agent:4318' } }, platform(env))?.endpoint).toBe('http://agent:4318/v1/traces');
    expect(tracingConfigOf({ tracing: { enabled: true } }, platform({}))?.endpoint).toBeUndefined();
  });

  it('an unsupported protocol leaves no protocol and says why', () => {
    const cfg = tracingConfigOf(undefined, platform({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'zipkin' }));
    expect(cfg?.protocol).toBeUndefined();
    expect(cfg?.problem).toMatch(/^OTEL_EXPORTER_OTLP_PROTOCOL=zipkin is not an OTLP protocol/);
  });
});

describe('telemetry under policies.data_residency', () => {
  const tenant = { exporter: 'otlp', endpoint: 'https://otel.acme.internal:4318' };
  const withResidency = (t: Platform['tenant'], residency = 'eu'): Platform => ({ env: readOtelEnv({}), ...(t ? { tenant: t } : {}), residency });

  it('refuses a tenant collector declared outside the residency, for every signal, saying which region and why', () => {
    const p = withResidency({ ...tenant, region: 'us-east-1' });
    for (const cfg of [tracingConfigOf(undefined, p), metricsConfigOf(undefined, p), logsConfigOf(undefined, p)]) {
      expect(cfg?.protocol).toBeUndefined();
      expect(cfg?.problem).toMatch(/collector is in region 'us-east-1', outside policies\.data_residency 'eu': nothing is sent there/);
    }
  });

  it('keeps a collector declared inside the residency (a sub-region too), and one that declares no region', () => {
    expect(tracingConfigOf(undefined, withResidency({ ...tenant, region: 'eu-west-1' }))).toMatchObject({ protocol: 'http/json', endpoint: 'https://otel.acme.internal:4318/v1/traces' });
    expect(tracingConfigOf(undefined, withResidency(tenant))?.protocol).toBe('http/json');
    expect(tracingConfigOf(undefined, { ...withResidency({ ...tenant, region: 'us' }), residency: undefined })?.protocol).toBe('http/json');
  });

  it('reads an agent\'s own collector region from its signal section', () => {
    const own = { tracing: { enabled: true, endpoint: 'http://agent:4318', region: 'ap-south-1' } };
    expect(tracingConfigOf(own, withResidency(undefined))?.problem).toMatch(/traces collector is in region 'ap-south-1'/);
    expect(tracingConfigOf({ tracing: { ...own.tracing, region: 'eu' } }, withResidency(undefined))?.protocol).toBe('http/json');
  });

  it('an agent with data_residency and a tenant collector elsewhere exports no span: the exporter says why once', () => {
    const { agent } = compileAgent({ agent_id: 'resident', model: scripted({ turns: [{ content: 'ok' }] }), front: { policies: { data_residency: 'eu' } } });
    const resident = { ...agent, tenant: { ...(agent.tenant ?? {}), telemetry: { ...tenant, region: 'us-east-1' } } } as typeof agent;
    const p = platformOf(resident, readOtelEnv({}));
    expect(p.residency).toBe('eu');
    const said: string[] = [];
    const exporters = new SpanExporters({ resource: {}, log: (m) => said.push(m), logOnce: (m) => said.push(m) });
    expect(exporters.for(resident, tracingConfigOf(resident.observability, p)!)).toBeUndefined();
    expect(said).toEqual([expect.stringMatching(/^tracing: agent resident: the traces collector is in region 'us-east-1', outside policies\.data_residency 'eu'.*; no spans are sent$/)]);
  });
});
