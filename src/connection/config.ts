/**
 * How Agentloom's client side (the CLI, a user's Client) and its workers find Temporal: the way the
 * `temporal` CLI and every Temporal SDK do, through `@temporalio/envconfig`. Precedence, highest
 * first:
 *  1. explicit settings (the CLI's --address, --namespace, --api-key, --tls, --tls-cert-path,
 *     --tls-key-path, --tls-ca-path, --tls-server-name; a caller's `overrides`);
 *  2. TEMPORAL_* variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS,
 *     TEMPORAL_TLS_CLIENT_CERT_PATH/_DATA, TEMPORAL_TLS_CLIENT_KEY_PATH/_DATA,
 *     TEMPORAL_TLS_SERVER_CA_CERT_PATH/_DATA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_*);
 *  3. a profile of the TOML config file (--profile, else TEMPORAL_PROFILE, else `default`) in
 *     TEMPORAL_CONFIG_FILE, else ~/.config/temporalio/temporal.toml.
 * With none of these naming an address, `address` is undefined: the CLI then looks for `loom dev`
 * and the production worker uses 127.0.0.1:7233. An API key turns TLS on (Temporal Cloud), as the
 * SDK does. The key is never part of what `describeConnection` prints.
 */
import type { NativeConnectionOptions } from '@temporalio/worker';
import { loadClientConfigProfile, toClientOptions, type ClientConfigProfile } from '@temporalio/envconfig';

/** Settings that override the environment and the profile (the CLI's connection flags). */
export interface ConnectionOverrides {
  address?: string;
  namespace?: string;
  apiKey?: string;
  /** Force TLS on (true) or off (false). */
  tls?: boolean;
  tlsCertPath?: string;
  tlsKeyPath?: string;
  tlsCaPath?: string;
  tlsServerName?: string;
  /** The profile of the config file (else TEMPORAL_PROFILE, else `default`). */
  profile?: string;
}

export interface TemporalConnectConfig {
  /** undefined when neither a setting, a variable nor the profile names one. */
  address?: string;
  namespace: string;
  /** For `NativeConnection.connect` (a worker) and `Connection.connect` (a client); `address` set by the caller. */
  connectionOptions: Omit<NativeConnectionOptions, 'address'>;
  /** What the connection uses, without secrets: for messages. */
  security: 'plaintext' | 'tls' | 'mtls';
  apiKey: boolean;
}

/** Load the connection settings (see the precedence above); a broken config file or unknown profile throws with its cause. */
export function loadTemporalConfig(overrides: ConnectionOverrides = {}, env: NodeJS.ProcessEnv = process.env): TemporalConnectConfig {
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({ profile: overrides.profile, overrideEnvVars: definedOnly(env) });
  } catch (err) {
    throw new Error(`Temporal connection settings: ${(err as Error).message}`);
  }
  if (overrides.address) profile.address = overrides.address;
  if (overrides.namespace) profile.namespace = overrides.namespace;
  if (overrides.apiKey) profile.apiKey = overrides.apiKey;
  const tlsFlags = overrides.tlsCertPath || overrides.tlsKeyPath || overrides.tlsCaPath || overrides.tlsServerName;
  if (overrides.tls !== undefined || tlsFlags) {
    const tls = { ...(profile.tls ?? {}) };
    tls.disabled = overrides.tls === false;
    if (overrides.tlsCertPath) tls.clientCert = { path: overrides.tlsCertPath };
    if (overrides.tlsKeyPath) tls.clientKey = { path: overrides.tlsKeyPath };
    if (overrides.tlsCaPath) tls.serverCACert = { path: overrides.tlsCaPath };
    if (overrides.tlsServerName) tls.serverName = overrides.tlsServerName;
    profile.tls = tls;
  }
  if (Boolean(profile.tls?.clientCert) !== Boolean(profile.tls?.clientKey)) {
    throw new Error('Temporal connection settings: a TLS client certificate needs its key and a key its certificate (--tls-cert-path with --tls-key-path, or TEMPORAL_TLS_CLIENT_CERT_PATH with TEMPORAL_TLS_CLIENT_KEY_PATH)');
  }
  let connect: ReturnType<typeof toClientOptions>;
  try {
    connect = toClientOptions(profile);
  } catch (err) {
    // A path that cannot be read: the message names the file, never its content.
    throw new Error(`Temporal connection settings: ${(err as Error).message}`);
  }
  const { address, ...connectionOptions } = connect.connectionOptions;
  const tls = connectionOptions.tls;
  const security = !tls ? 'plaintext' : typeof tls === 'object' && tls.clientCertPair ? 'mtls' : 'tls';
  return { address: address || undefined, namespace: connect.namespace || 'default', connectionOptions, security, apiKey: connectionOptions.apiKey !== undefined };
}

/** `host:port (namespace n, TLS, API key)` — never the key itself. */
export function describeConnection(address: string, cfg: Pick<TemporalConnectConfig, 'namespace' | 'security' | 'apiKey'>): string {
  const parts = [`namespace ${cfg.namespace}`];
  if (cfg.security !== 'plaintext') parts.push(cfg.security === 'mtls' ? 'mTLS' : 'TLS');
  if (cfg.apiKey) parts.push('API key');
  return `${address} (${parts.join(', ')})`;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
