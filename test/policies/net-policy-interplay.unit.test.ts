/**
 * The interplay of `policies.allow_external_http`, a tool's `http.allowed_hosts` /
 * `http.allow_private_network` and LOOM_INTERNAL_HOSTS, tested row by row as docs/registry.md
 * ("Network policy for http tools") states it: the host check (by name) comes first, then every
 * resolved address must be public unless the tool allows private networks.
 */
import { checkHttpTarget, type NetPolicy } from '../../src/governance/network';

const dns: Record<string, string[]> = { 'api.example.com': ['93.184.216.34'], 'wiki.corp': ['10.1.2.3'], 'rebind.example.com': ['127.0.0.1'] };
const resolve = async (h: string) => dns[h] ?? [];
const check = (url: string, p: NetPolicy) => checkHttpTarget(url, p, resolve).then((r) => (r.ok ? 'ok' : r.reason));

describe('network policy, as docs/registry.md states it', () => {
  test('1. allow_external_http: true — any public host; a private address still needs allow_private_network', async () => {
    expect(await check('https://api.example.com/x', { allowExternalHttp: true, internalHosts: [] })).toBe('ok');
    expect(await check('http://rebind.example.com/', { allowExternalHttp: true, internalHosts: [] })).toMatch(/resolves to 127\.0\.0\.1 \(loopback\).*allow_private_network: true/);
  });
  test('2. allow_external_http: false — only hosts in the tool\'s allowed_hosts or LOOM_INTERNAL_HOSTS', async () => {
    expect(await check('https://api.example.com/x', { allowExternalHttp: false, internalHosts: [] })).toMatch(/external HTTP is disabled.*not in the tool's http.allowed_hosts or LOOM_INTERNAL_HOSTS/);
    expect(await check('https://api.example.com/x', { allowExternalHttp: false, allowedHosts: ['*.example.com'], internalHosts: [] })).toBe('ok');
    expect(await check('https://api.example.com/x', { allowExternalHttp: false, internalHosts: ['api.example.com'] })).toBe('ok');
  });
  test('3. LOOM_INTERNAL_HOSTS admits a host by name only: its private address still needs allow_private_network', async () => {
    expect(await check('http://wiki.corp/page', { allowExternalHttp: false, internalHosts: ['wiki.corp'] })).toMatch(/resolves to 10\.1\.2\.3 \(private\)/);
    expect(await check('http://wiki.corp/page', { allowExternalHttp: false, internalHosts: ['wiki.corp'], allowPrivateNetwork: true })).toBe('ok');
  });
  test('4. allow_private_network alone does not admit a host when external HTTP is off', async () => {
    expect(await check('http://wiki.corp/page', { allowExternalHttp: false, internalHosts: [], allowPrivateNetwork: true })).toMatch(/external HTTP is disabled/);
  });
  test('5. LOOM_INTERNAL_HOSTS is read from the environment when the policy names none', async () => {
    process.env.LOOM_INTERNAL_HOSTS = 'wiki.corp';
    try {
      expect(await check('http://wiki.corp/page', { allowExternalHttp: false, allowPrivateNetwork: true })).toBe('ok');
    } finally {
      delete process.env.LOOM_INTERNAL_HOSTS;
    }
  });
});
