/**
 * The connection settings' precedence (src/connection/config.ts): explicit settings (the CLI's
 * flags) over TEMPORAL_* variables over the config file's profile; an API key turns TLS on; a
 * client certificate without its key is refused; the description never holds the key.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeConnection, loadTemporalConfig } from '../../src/connection/config';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-envconfig-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'temporal.toml');
fs.writeFileSync(path.join(dir, 'ca.pem'), 'not a real CA');
fs.writeFileSync(file, [
  '[profile.default]', 'address = "default.example:7233"', 'namespace = "from-default"',
  '[profile.cloud]', 'address = "cloud.example:7233"', 'namespace = "from-cloud"', 'api_key = "cloud-key"',
  '[profile.tls]', 'address = "tls.example:7233"', '[profile.tls.tls]', `server_ca_cert_path = "${path.join(dir, 'ca.pem')}"`, 'server_name = "tls.example"',
].join('\n'));
// HOME points to an empty folder: no user config file is read by accident.
const base = { HOME: dir, TEMPORAL_CONFIG_FILE: file };

test('the default profile when nothing else is said; TEMPORAL_PROFILE picks another, --profile beats it', () => {
  expect(loadTemporalConfig({}, base)).toMatchObject({ address: 'default.example:7233', namespace: 'from-default', security: 'plaintext', apiKey: false });
  expect(loadTemporalConfig({}, { ...base, TEMPORAL_PROFILE: 'cloud' })).toMatchObject({ address: 'cloud.example:7233', namespace: 'from-cloud', security: 'tls', apiKey: true });
  expect(loadTemporalConfig({ profile: 'tls' }, { ...base, TEMPORAL_PROFILE: 'cloud' })).toMatchObject({ address: 'tls.example:7233', security: 'tls', apiKey: false });
  const tls = loadTemporalConfig({ profile: 'tls' }, base).connectionOptions.tls;
  expect(tls).toMatchObject({ serverNameOverride: 'tls.example' });
  expect(Buffer.from((tls as { serverRootCACertificate: Uint8Array }).serverRootCACertificate).toString()).toBe('not a real CA');
});

test('TEMPORAL_* variables override the profile; explicit settings override the variables', () => {
  const env = { ...base, TEMPORAL_PROFILE: 'cloud', TEMPORAL_ADDRESS: 'env.example:7233', TEMPORAL_NAMESPACE: 'from-env', TEMPORAL_API_KEY: 'env-key' };
  expect(loadTemporalConfig({}, env)).toMatchObject({ address: 'env.example:7233', namespace: 'from-env', connectionOptions: { apiKey: 'env-key' } });
  expect(loadTemporalConfig({ address: 'flag.example:7233', namespace: 'from-flag', apiKey: 'flag-key' }, env))
    .toMatchObject({ address: 'flag.example:7233', namespace: 'from-flag', connectionOptions: { apiKey: 'flag-key' } });
  // --tls off wins over the TLS the API key implies; --tls-ca-path turns it on.
  expect(loadTemporalConfig({ tls: false }, env).security).toBe('plaintext');
  expect(loadTemporalConfig({ tlsCaPath: path.join(dir, 'ca.pem') }, { HOME: dir, TEMPORAL_ADDRESS: 'a:1' }).security).toBe('tls');
});

test('no address anywhere: undefined (the CLI then looks for loom dev), namespace default', () => {
  expect(loadTemporalConfig({}, { HOME: dir })).toMatchObject({ address: undefined, namespace: 'default', security: 'plaintext' });
});

test('bad settings are refused with their cause', () => {
  expect(() => loadTemporalConfig({ profile: 'nope' }, base)).toThrow("Temporal connection settings: Profile 'nope' not found in config data");
  expect(() => loadTemporalConfig({ tlsCertPath: path.join(dir, 'ca.pem') }, base)).toThrow(/client certificate needs its key/);
  expect(() => loadTemporalConfig({ tlsCaPath: path.join(dir, 'missing.pem') }, base)).toThrow(/Temporal connection settings: .*missing\.pem/);
});

test('the description says an API key is used, never which', () => {
  const cfg = loadTemporalConfig({}, { ...base, TEMPORAL_API_KEY: 'sekret-123' });
  const line = describeConnection(cfg.address!, cfg);
  expect(line).toBe('default.example:7233 (namespace from-default, TLS, API key)');
  expect(line).not.toContain('sekret-123');
});
