/**
 * How the CLI reaches Temporal:
 *  1. an address from the connection settings → that server (a real cluster): the `temporal` CLI's
 *     flags (--address, --namespace, --api-key, --tls*, --profile), else TEMPORAL_* variables
 *     (TEMPORAL_ADDRESS, TEMPORAL_API_KEY, TEMPORAL_TLS_*…), else the profile of the Temporal config
 *     file (src/connection/config.ts has the precedence); TEMPORAL_UI_URL optional;
 *  2. a `loom dev` running from this folder (.loom/dev.json) → its embedded server;
 *  3. otherwise, for commands that can (run), an embedded `temporal server start-dev` with its SQLite
 *     file under .loom/ (runs survive a restart) plus an in-process worker, stopped on exit.
 *
 * Closing order matters: every client call must have settled before its Connection closes (a gRPC
 * retry timer left behind throws "Channel has been shut down" from a timer, an uncaught error), and
 * the client goes first, then the worker, its native connection, and the server last.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Client, Connection } from '@temporalio/client';
import type { DevServer } from '../platform/temporal-dev-server';
import { describeConnection, loadTemporalConfig, type ConnectionOverrides, type TemporalConnectConfig } from '../connection/config';

export interface LoomSession {
  client: Client;
  address: string;
  namespace: string;
  uiUrl?: string;
  embedded: boolean;
  close(): Promise<void>;
}

export const LOOM_DIR = () => path.resolve(process.env.LOOM_HOME ?? path.join(process.cwd(), '.loom'));
let overrides: ConnectionOverrides = {};

/** The connection options of the command line (--address, --tls, …) that `connect()` applies; one command per process. */
export function setConnectionOverrides(o: ConnectionOverrides): void {
  overrides = o;
}

const DEV_FILE = () => path.join(LOOM_DIR(), 'dev.json');

interface DevInfo { address: string; uiUrl?: string; pid: number }

export function readDevInfo(): DevInfo | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(DEV_FILE(), 'utf8')) as DevInfo;
    process.kill(info.pid, 0); // throws when the `loom dev` process is gone
    return info;
  } catch {
    return undefined;
  }
}

export function writeDevInfo(info: DevInfo): void {
  fs.mkdirSync(LOOM_DIR(), { recursive: true });
  fs.writeFileSync(DEV_FILE(), JSON.stringify(info, null, 2));
}

export function removeDevInfo(): void {
  fs.rmSync(DEV_FILE(), { force: true });
}

export function webUiLink(uiUrl: string | undefined, namespace: string, workflowId: string): string | undefined {
  if (!uiUrl) return undefined;
  return `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** How long a command waits for the server's channel (TCP, TLS, HTTP/2) before saying it cannot reach it. */
const CONNECT_TIMEOUT_MS = 10_000;

/** `cfg` (TLS, API key) for a configured cluster; none for a `loom dev` or embedded server (plaintext on 127.0.0.1). */
export async function clientFor(address: string, namespace: string, cfg?: TemporalConnectConfig): Promise<{ client: Client; connection: Connection }> {
  // Loaded here, not at the top: a command that fails on its arguments never loads gRPC.
  const { Client, Connection } = await import('@temporalio/client');
  // `Connection.connect` waits for the channel to be ready, then makes a GetSystemInfo call before the
  // command's own first call: one more round trip on every command. Here the connection waits only
  // for the channel (TCP, TLS, HTTP/2: what a server that is down, or refuses the TLS settings,
  // fails), the check `Connection.connect` starts with; the command's first call is the first RPC.
  class ReadyConnection extends Connection {
    ready(deadline: number): Promise<void> { return this.untilReady(deadline); }
  }
  let connection: ReadyConnection;
  try {
    connection = ReadyConnection.lazy({ ...(cfg?.connectionOptions ?? {}), address, connectTimeout: CONNECT_TIMEOUT_MS }) as ReadyConnection;
  } catch (err) {
    throw unreachable(address, cfg, err);
  }
  try {
    await connection.ready(Date.now() + CONNECT_TIMEOUT_MS);
  } catch (err) {
    await connection.close();
    throw unreachable(address, cfg, err);
  }
  // Same codec as the workers (LOOM_CODEC_KEY…): inputs the CLI sends and results it reads are sealed on the wire.
  const { loomDataConverter } = await import('../codec/data-converter');
  // Temporal's tracing interceptors, loaded by the first call they intercept (a visibility list loads
  // none); the OTLP exporters load only when spans go somewhere.
  const { lazyTemporalClientInterceptors } = await import('../telemetry/lazy-client-interceptor');
  return { client: new Client({ connection, namespace, dataConverter: loomDataConverter(), interceptors: lazyTemporalClientInterceptors() }), connection };
}

/** The settings described without the API key (the SDK's message does not carry it either). */
function unreachable(address: string, cfg: TemporalConnectConfig | undefined, err: unknown): Error {
  return new Error(`cannot reach Temporal at ${cfg ? describeConnection(address, cfg) : address}: ${(err as Error).message}`);
}

/**
 * Start the embedded server (SQLite under .loom/) for `loom dev` and `loom run`. With a codec key
 * configured (LOOM_CODEC_KEY…) its Web UI decodes payloads: through LOOM_UI_CODEC_ENDPOINT when set,
 * else a codec endpoint served in this process on 127.0.0.1 for the UI's own origin only (what
 * `loom codec-server` serves), stopped with the server.
 */
export async function startEmbeddedServer(): Promise<DevServer & { codecUrl?: string }> {
  const { freePort, startDevServer } = await import('../platform/temporal-dev-server');
  const want = Number(process.env.LOOM_UI_PORT ?? 8233);
  const uiPort = (await portFree(want)) ? want : await freePort();
  const { codecKeysFromEnv } = await import('../codec/keys');
  const keys = codecKeysFromEnv();
  let codec: { url: string; close(): Promise<void> } | undefined;
  let codecUrl = process.env.LOOM_UI_CODEC_ENDPOINT || undefined;
  if (!codecUrl && keys.byId.size) {
    const { startCodecServer } = await import('../codec/server');
    codec = await startCodecServer({ keys, port: 0, origins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`] });
    codecUrl = codec.url;
  }
  try {
    const server = await startDevServer({ dbFile: path.join(LOOM_DIR(), 'temporal.sqlite'), uiPort, logFile: path.join(LOOM_DIR(), 'temporal-dev.log'), uiCodecEndpoint: codecUrl });
    return { ...server, codecUrl, stop: async () => { await server.stop(); await codec?.close(); } };
  } catch (err) {
    await codec?.close();
    throw err;
  }
}

async function portFree(port: number): Promise<boolean> {
  const net = await import('net');
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Starts a server and an in-process worker for a command that may run one itself (the CLI's `loom run`: src/cli/embedded.ts). */
export type EmbeddedStarter = (namespace: string, verbose?: boolean) => Promise<LoomSession>;

/**
 * Connect for a command: the configured cluster, else the `loom dev` server of this folder. With
 * `embedded` a starter, a command with neither starts its own server and worker through it;
 * `'never'` fails with what to do instead. `overrides` (an AgentloomClient's) replace the command line's.
 */
export async function connect(opts: { embedded: 'never' | EmbeddedStarter; verbose?: boolean; overrides?: ConnectionOverrides } = { embedded: 'never' }): Promise<LoomSession> {
  const cfg = loadTemporalConfig(opts.overrides ?? overrides);
  const namespace = cfg.namespace;
  const external = cfg.address;
  if (external) {
    const { client, connection } = await clientFor(external, namespace, cfg);
    return { client, address: external, namespace, uiUrl: process.env.TEMPORAL_UI_URL, embedded: false, close: () => connection.close() };
  }
  const dev = readDevInfo();
  if (dev) {
    const { client, connection } = await clientFor(dev.address, namespace);
    return { client, address: dev.address, namespace, uiUrl: dev.uiUrl, embedded: false, close: () => connection.close() };
  }
  if (opts.embedded === 'never') {
    throw new Error('no Temporal server: set TEMPORAL_ADDRESS to a cluster, or start `loom dev` in this folder first');
  }
  return opts.embedded(namespace, opts.verbose);
}
