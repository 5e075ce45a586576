/**
 * The server commands load only what their calls need: `loom list` and `loom inbox` (visibility
 * lists, no traced call) load the Temporal client and no OpenTelemetry, compiler or worker module;
 * `loom status` (a describe and a query: reads) loads OpenTelemetry only when its spans go
 * somewhere. `list` and `status` (and `inbox` when nothing in the namespace waits) load no zod
 * (the contract's payload schemas: the names they need live apart from them), and none of the three
 * loads @temporalio/workflow (the status query is a plain definition). With an OTEL_*
 * trace destination its calls are still traced: the describe's span reaches the collector. The
 * packaged CLI runs its one-file build (dist/client.bundle.js), which holds the Temporal client: the
 * same commands load it from the bundle, and still none of the packages left out of it.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { builtLoomBin } from '../helpers/built-cli';
import { temporalAddress } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { loomLoads } from './loaded';
import { CliHarness, DEMO_REGISTRY, startCliHarness, statusWhen } from './harness';

jest.setTimeout(600_000); // the first file to ask for the built CLI packs it (test/library/pack.ts)

const server = () => ({ TEMPORAL_ADDRESS: temporalAddress() });

test('loom list loads the Temporal client and no telemetry, compiler or worker', async () => {
  const r = await loomLoads(['list', '--limit', '1'], server());
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.heavy).toEqual(['@temporalio/client']);
});

test('loom status without a trace destination loads no OpenTelemetry', async () => {
  const r = await loomLoads(['status', `no-such-run-${Date.now()}`], server());
  expect(r.err).toMatch(/no run with id no-such-run-/);
  expect(r.code).toBe(1);
  expect(r.heavy).toEqual(['@temporalio/client']);
});

test('loom inbox loads the Temporal client and no telemetry, compiler or worker', async () => {
  const r = await loomLoads(['inbox', '--agent', `no-such-agent-${Date.now()}`], server());
  expect(r.code).toBe(0);
  expect(r.out).toBe('nothing is waiting on a human\n');
  // The inbox queries every waiting run of the namespace before it filters by agent, and reads its
  // query timeout (src/platform/env.ts, with zod) at its first query: on the suite's shared server
  // other files' runs may be waiting for approval, so zod is not held out here (list and status are).
  expect(r.heavy.filter((m) => m !== 'zod')).toEqual(['@temporalio/client']);
});

describe('the packaged CLI (its one-file build)', () => {
  /** The packages a command loaded from node_modules, by name; whether it ran the bundle and not dist/src. */
  const fromBuild = async (args: string[]) => {
    const bin = await builtLoomBin();
    const r = await loomLoads(args, server(), bin);
    const dist = path.join(path.dirname(bin), '..', 'dist').split(path.sep).join('/');
    const packages = [...new Set(r.files.map((f) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]).filter((p): p is string => p !== undefined))].sort();
    return { ...r, packages, bundle: r.files.includes(`${dist}/client.bundle.js`), distSrc: r.files.filter((f) => f.startsWith(`${dist}/src/`) || f === `${dist}/client.js`) };
  };

  test.each([[['list', '--limit', '1']], [['status', `no-such-run-${Date.now()}`]], [['inbox', '--agent', `no-such-agent-${Date.now()}`]], [['--version']]])('loom %p runs the bundle and loads no package from node_modules', async (args) => {
    const r = await fromBuild(args);
    expect(r.err).toMatch(args[0] === 'status' ? /no run with id/ : /^$/);
    expect(r.bundle).toBe(true);
    expect(r.distSrc).toEqual([]);
    // The inbox reads its query timeout with zod when a run of the shared server waits (see above).
    expect(r.packages.filter((p) => p !== 'zod')).toEqual([]);
  });

  test('validate loads the compiler from the bundle and the YAML reader only for a position, as from source', async () => {
    const r = await fromBuild(['validate', '--registry', DEMO_REGISTRY]);
    expect(r.code).toBe(0);
    expect(r.bundle).toBe(true);
    expect(r.packages).not.toContain('@temporalio/client');
    expect(r.packages.filter((p) => p.startsWith('@opentelemetry') || p.startsWith('@temporalio/') || p.startsWith('@aws-sdk') || p.startsWith('@modelcontextprotocol'))).toEqual([]);
  });
});

describe('on a run of the demo agent waiting for an approval', () => {
  let h: CliHarness;
  let id: string;
  const cliEnv = () => ({ TEMPORAL_ADDRESS: h.env.TEMPORAL_ADDRESS, LOOM_TASK_QUEUE: h.taskQueue, LOOM_STORE_DIR: h.env.LOOM_STORE_DIR });

  beforeAll(async () => {
    h = await startCliHarness('start-loads');
    const input = JSON.stringify({ destination: 'Porto', nights: 2, nightly_rate_eur: 100, daily_budget_eur: 50 });
    const r = await h.loom(['start', 'trip-planner', '--registry', DEMO_REGISTRY, '--input', input]);
    expect(r).toMatchObject({ code: 0, err: '' });
    id = r.out.trim();
    await statusWhen(h, id, `${id} waiting for approval`, (s) => s.pending_approvals.length === 1);
  });
  afterAll(async () => {
    await h?.handle(id).terminate('test over').catch(() => undefined);
    await h?.close();
  });

  test('loom status queries it (the status query answered) and loads neither zod nor @temporalio/workflow', async () => {
    const r = await loomLoads(['status', id], cliEnv());
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/pending approval .+: save-itinerary/);
    expect(r.heavy).toEqual(['@temporalio/client']);
  });

  test('loom inbox lists its decision and loads no @temporalio/workflow', async () => {
    const r = await loomLoads(['inbox', '--json'], cliEnv());
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { root_workflow_id: string }[]).map((e) => e.root_workflow_id)).toContain(id);
    // The status queries' timeout is read from the LOOM_* environment, whose reader is a zod schema.
    expect(r.heavy).toEqual(['@temporalio/client', 'zod']);
  });

  test('a bad LOOM_INBOX_QUERY_TIMEOUT_SECONDS fails the inbox with its name, instead of dropping the run from the list', async () => {
    const r = await h.loom(['inbox', '--json'], { env: { LOOM_INBOX_QUERY_TIMEOUT_SECONDS: 'ten' } });
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toContain("LOOM_INBOX_QUERY_TIMEOUT_SECONDS must be a positive integer, got 'ten'");
  });
});

describe('with an OTEL_* trace destination', () => {
  let receiver: http.Server;
  let url: string;
  const spanNames: string[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => { body += d; }).on('end', () => {
        const doc = JSON.parse(body || '{}') as { resourceSpans?: { scopeSpans?: { spans?: { name: string }[] }[] }[] };
        for (const rs of doc.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spanNames.push(s.name);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  });
  afterAll(async () => { await new Promise((r) => receiver.close(r)); });

  test('loom status loads OpenTelemetry and its describe is traced', async () => {
    const r = await loomLoads(['status', `no-such-run-${Date.now()}`], { ...server(), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' });
    expect(r.err).toMatch(/no run with id no-such-run-/);
    expect(r.code).toBe(1);
    expect(r.heavy).toContain('OpenTelemetry');
    expect(r.heavy).not.toContain('@temporalio/worker (and its bundler)');
    // The span is exported before the process exits; the request may still be read when it has.
    await until(() => (spanNames.includes('DescribeWorkflow') ? true : undefined), () => `a DescribeWorkflow span (got ${JSON.stringify(spanNames)})`, 10_000);
  });

  test('OTEL_SDK_DISABLED=true turns it off again: no OpenTelemetry loads', async () => {
    const r = await loomLoads(['status', `no-such-run-${Date.now()}`], { ...server(), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url, OTEL_SDK_DISABLED: 'true' });
    expect(r.code).toBe(1);
    expect(r.heavy).not.toContain('OpenTelemetry');
  });
});
