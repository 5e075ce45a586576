import * as http from 'http';
import type { AddressInfo } from 'net';
import {
  checkAddresses,
  checkHost,
  checkHttpTarget,
  classifyAddress,
  guardedLookup,
  hostMatches,
  internalHostsFromEnv,
  isNonPublicAddress,
  NetPolicy,
  parseIPv6,
} from '../../src/governance/network';

describe('address classification', () => {
  test.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['::ffff:0:10.1.1.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00::1', 'private'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700::1111', 'public'],
    ['1:2:3:4:5:6:1.2.3.4', 'public'],
    ['localhost', 'invalid'],
    ['999.1.1.1', 'invalid'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
    expect(isNonPublicAddress(ip)).toBe(cls !== 'public');
  });

  test('parseIPv6 expands :: and embedded IPv4', () => {
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6('a::')).toEqual([0xa, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1.2.3.4')).toBeUndefined();
  });
});

describe('host allowlists', () => {
  test('exact, wildcard and IPv6 matching', () => {
    expect(hostMatches('API.Example.com.', 'api.example.com')).toBe(true);
    expect(hostMatches('a.example.com', '*.example.com')).toBe(true);
    expect(hostMatches('a.b.example.com', '*.example.com')).toBe(true);
    expect(hostMatches('example.com', '*.example.com')).toBe(false);
    expect(hostMatches('badexample.com', '*.example.com')).toBe(false);
    expect(hostMatches('example.com.evil.io', 'example.com')).toBe(false);
    expect(hostMatches('[::1]', '0:0:0:0:0:0:0:1')).toBe(true);
    expect(hostMatches('::2', '::1')).toBe(false);
    expect(hostMatches('x', '')).toBe(false);
  });

  test('checkHost: external HTTP on allows any host; off allows only allowed_hosts and LOOM_INTERNAL_HOSTS', () => {
    expect(checkHost('api.example.com', { allowExternalHttp: true })).toEqual({ ok: true });
    const off: NetPolicy = { allowExternalHttp: false, allowedHosts: ['api.example.com'], internalHosts: [] };
    expect(checkHost('api.example.com', off)).toEqual({ ok: true });
    const d = checkHost('other.example.com', off);
    expect(d.ok).toBe(false);
    expect(!d.ok && d.reason).toMatch(/allow_external_http: false.*'other\.example\.com'/);
    expect(checkHost('svc.internal', { ...off, internalHosts: ['*.internal'] })).toEqual({ ok: true });
    expect(checkHost('', { allowExternalHttp: true }).ok).toBe(false);
  });

  test('internalHostsFromEnv splits on commas and whitespace', () => {
    expect(internalHostsFromEnv({ LOOM_INTERNAL_HOSTS: 'a.internal, b.internal  *.svc' })).toEqual(['a.internal', 'b.internal', '*.svc']);
    expect(internalHostsFromEnv({})).toEqual([]);
  });

  test('checkAddresses: every address must be public unless private networks are allowed', () => {
    const p: NetPolicy = { allowExternalHttp: true };
    expect(checkAddresses('h', ['8.8.8.8'], p)).toEqual({ ok: true });
    const mixed = checkAddresses('h', ['8.8.8.8', '10.0.0.1'], p);
    expect(mixed.ok).toBe(false);
    expect(!mixed.ok && mixed.reason).toMatch(/10\.0\.0\.1 \(private\).*allow_private_network/);
    expect(checkAddresses('h', ['10.0.0.1'], { ...p, allowPrivateNetwork: true })).toEqual({ ok: true });
    expect(checkAddresses('h', [], { ...p, allowPrivateNetwork: true }).ok).toBe(false);
  });
});

describe('checkHttpTarget', () => {
  const pub = async () => ['93.184.216.34'];
  test('accepts a public http(s) target and returns the checked addresses', async () => {
    await expect(checkHttpTarget('https://api.example.com/x', { allowExternalHttp: true }, pub)).resolves.toEqual({ ok: true, addresses: ['93.184.216.34'] });
  });
  test.each([
    ['ftp://example.com/x', /scheme 'ftp:'/],
    ['file:///etc/passwd', /scheme 'file:'/],
    ['http://user:pw@example.com/', /credentials/],
    ['not a url', /invalid URL/],
  ])('refuses %s', async (url, re) => {
    const r = await checkHttpTarget(url, { allowExternalHttp: true }, pub);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(re);
  });
  test('numeric host spellings of loopback are caught (URL normalizes them)', async () => {
    for (const u of ['http://0x7f.1/', 'http://2130706433/', 'http://[::ffff:127.0.0.1]/', 'http://127.1/']) {
      const r = await checkHttpTarget(u, { allowExternalHttp: true });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(/loopback/);
    }
  });
  test('a name resolving to a private address is refused; a resolver error is reported', async () => {
    const r = await checkHttpTarget('http://rebind.example/', { allowExternalHttp: true }, async () => ['8.8.8.8', '192.168.0.5']);
    expect(!r.ok && r.reason).toMatch(/192\.168\.0\.5 \(private\)/);
    const e = await checkHttpTarget('http://nx.example/', { allowExternalHttp: true }, async () => {
      throw new Error('ENOTFOUND nx.example');
    });
    expect(!e.ok && e.reason).toMatch(/cannot resolve host 'nx\.example'/);
  });
  test('the host allowlist is checked before DNS', async () => {
    const resolve = jest.fn(pub);
    const r = await checkHttpTarget('https://elsewhere.example/', { allowExternalHttp: false, allowedHosts: ['api.example.com'], internalHosts: [] }, resolve);
    expect(r.ok).toBe(false);
    expect(resolve).not.toHaveBeenCalled();
  });
});

describe('guardedLookup', () => {
  function lookupP(fn: ReturnType<typeof guardedLookup>, host: string, opts: object): Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }> {
    return new Promise((resolve) =>
      (fn as unknown as (h: string, o: object, cb: (err: NodeJS.ErrnoException | null, address: unknown, family?: number) => void) => void)(host, opts, (err, address, family) =>
        resolve({ err, address, family }),
      ),
    );
  }

  test('returns checked addresses, honouring family and all', async () => {
    const fn = guardedLookup({ allowExternalHttp: true }, async () => ['2606:4700::1111', '93.184.216.34']);
    expect(await lookupP(fn, 'x.example', {})).toEqual({ err: null, address: '2606:4700::1111', family: 6 });
    expect(await lookupP(fn, 'x.example', { family: 4 })).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect((await lookupP(fn, 'x.example', { all: true, family: 6 })).address).toEqual([{ address: '2606:4700::1111', family: 6 }]);
    const none = await lookupP(guardedLookup({ allowExternalHttp: true }, async () => ['93.184.216.34']), 'x.example', { family: 6 });
    expect(none.err?.code).toBe('ENOTFOUND');
  });

  test('refuses with EPOLICY when an answer is private', async () => {
    const fn = guardedLookup({ allowExternalHttp: true }, async () => ['10.0.0.7']);
    const r = await lookupP(fn, 'x.example', { all: true });
    expect(r.err?.code).toBe('EPOLICY');
    expect(r.err?.message).toMatch(/10\.0\.0\.7 \(private\)/);
  });

  describe('with http.request against 127.0.0.1', () => {
    let server: http.Server;
    let port: number;
    const hosts: string[] = [];
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        hosts.push(String(req.headers.host));
        res.end('ok');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((r) => server.close(r));
    });

    function get(lookup: ReturnType<typeof guardedLookup>): Promise<string> {
      return new Promise((resolve, reject) => {
        const req = http.request(`http://svc.test:${port}/`, { lookup, agent: false }, (res) => {
          let b = '';
          res.on('data', (c: Buffer) => (b += c.toString()));
          res.on('end', () => resolve(b));
        });
        req.on('error', reject);
        req.end();
      });
    }

    test('connects to the resolved address when private networks are allowed', async () => {
      await expect(get(guardedLookup({ allowExternalHttp: true, allowPrivateNetwork: true }, async () => ['127.0.0.1']))).resolves.toBe('ok');
      expect(hosts).toContain(`svc.test:${port}`);
    });

    test('the connection fails with EPOLICY otherwise', async () => {
      const n = hosts.length;
      await expect(get(guardedLookup({ allowExternalHttp: true }, async () => ['127.0.0.1']))).rejects.toMatchObject({ code: 'EPOLICY' });
      expect(hosts.length).toBe(n);
    });
  });
});
