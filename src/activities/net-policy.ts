/**
 * Network policy for http tools (seed 001 `policies.allow_external_http`): host allowlists and
 * private/loopback/link-local address classification for IPv4 and IPv6. Everything here is pure
 * except `checkHttpTarget`/`guardedLookup`, which resolve DNS through an injectable resolver.
 */
import * as dns from 'dns';
import * as net from 'net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

function v4ToInt(ip: string): number | undefined {
  if (!net.isIPv4(ip)) return undefined;
  const p = ip.split('.').map(Number);
  return ((p[0] << 24) >>> 0) + (p[1] << 16) + (p[2] << 8) + p[3];
}

function inV4(n: number, base: string, bits: number): boolean {
  const b = v4ToInt(base)!;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((n & mask) >>> 0) === ((b & mask) >>> 0);
}

export function classifyIPv4(ip: string): AddressClass {
  const n = v4ToInt(ip);
  if (n === undefined) return 'invalid';
  if (inV4(n, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(n, '127.0.0.0', 8)) return 'loopback';
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16) || inV4(n, '100.64.0.0', 10)) return 'private';
  if (inV4(n, '169.254.0.0', 16)) return 'link-local';
  if (n === 0xffffffff) return 'broadcast';
  if (inV4(n, '224.0.0.0', 4)) return 'multicast';
  if (
    inV4(n, '240.0.0.0', 4) ||
    inV4(n, '192.0.0.0', 24) ||
    inV4(n, '192.0.2.0', 24) ||
    inV4(n, '198.18.0.0', 15) ||
    inV4(n, '198.51.100.0', 24) ||
    inV4(n, '203.0.113.0', 24)
  )
    return 'reserved';
  return 'public';
}

/** Parse an IPv6 address (with optional zone and embedded IPv4) into 8 16-bit groups. */
export function parseIPv6(input: string): number[] | undefined {
  let ip = input.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const pct = ip.indexOf('%');
  if (pct >= 0) ip = ip.slice(0, pct);
  if (!net.isIPv6(ip)) return undefined;
  let tail: number[] = [];
  const lastColon = ip.lastIndexOf(':');
  const lastPart = ip.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    const n = v4ToInt(lastPart);
    if (n === undefined) return undefined;
    tail = [(n >>> 16) & 0xffff, n & 0xffff];
    ip = ip.slice(0, lastColon + 1) + (ip.slice(lastColon - 1, lastColon + 1) === '::' ? '' : '0');
    if (ip.endsWith(':0')) ip = ip.slice(0, -2);
    else if (ip.endsWith(':') && !ip.endsWith('::')) ip = ip.slice(0, -1);
  }
  const want = 8 - tail.length;
  const dbl = ip.indexOf('::');
  let groups: string[];
  if (dbl >= 0) {
    const left = ip.slice(0, dbl) ? ip.slice(0, dbl).split(':') : [];
    const right = ip.slice(dbl + 2) ? ip.slice(dbl + 2).split(':') : [];
    const fill = want - left.length - right.length;
    if (fill < 0) return undefined;
    groups = [...left, ...Array<string>(fill).fill('0'), ...right];
  } else {
    groups = ip ? ip.split(':') : [];
  }
  if (groups.length !== want) return undefined;
  const out = groups.map((g) => parseInt(g || '0', 16));
  if (out.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return undefined;
  return [...out, ...tail];
}

function v4FromGroups(hi: number, lo: number): string {
  return [hi >>> 8, hi & 0xff, lo >>> 8, lo & 0xff].join('.');
}

export function classifyIPv6(ip: string): AddressClass {
  const g = parseIPv6(ip);
  if (!g) return 'invalid';
  const zeroPrefix = (k: number) => g.slice(0, k).every((x) => x === 0);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (zeroPrefix(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d: judge the embedded IPv4.
  if (zeroPrefix(5) && g[5] === 0xffff) return classifyIPv4(v4FromGroups(g[6], g[7]));
  if (zeroPrefix(6)) return classifyIPv4(v4FromGroups(g[6], g[7]));
  // IPv4-translated ::ffff:0:a.b.c.d
  if (zeroPrefix(4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(v4FromGroups(g[6], g[7]));
  // NAT64 64:ff9b::/96 and 64:ff9b:1::/48 carry an IPv4 address in the low 32 bits.
  if (g[0] === 0x64 && g[1] === 0xff9b) return classifyIPv4(v4FromGroups(g[6], g[7]));
  // 6to4 2002:V4ADDR::/48
  if (g[0] === 0x2002) {
    const inner = classifyIPv4(v4FromGroups(g[1], g[2]));
    return inner === 'public' ? 'public' : inner;
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  if (g[0] === 0x0100 && zeroPrefix(0) && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved'; // discard-only 100::/64
  return 'public';
}

export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (net.isIPv4(bare)) return classifyIPv4(bare);
  if (parseIPv6(bare)) return classifyIPv6(bare);
  return 'invalid';
}

/** True for anything but a public unicast address. */
export function isNonPublicAddress(ip: string): boolean {
  return classifyAddress(ip) !== 'public';
}

export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** Exact host match, or `*.example.com` wildcard (subdomains only). Ports are not part of the match. */
export function hostMatches(host: string, pattern: string): boolean {
  const h = normalizeHost(host);
  const p = normalizeHost(pattern);
  if (!p) return false;
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  if (h === p) return true;
  // IPv6 literals compare by value: `0:0:0:0:0:0:0:1` in an allowlist matches the URL's `::1`.
  const hv6 = net.isIPv4(h) ? undefined : parseIPv6(h);
  const pv6 = net.isIPv4(p) ? undefined : parseIPv6(p);
  return !!hv6 && !!pv6 && hv6.every((g, i) => g === pv6[i]);
}

export function internalHostsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.LOOM_INTERNAL_HOSTS ?? '')
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface NetPolicy {
  allowExternalHttp: boolean;
  allowedHosts?: string[];
  allowPrivateNetwork?: boolean;
  /** Defaults to LOOM_INTERNAL_HOSTS. */
  internalHosts?: string[];
}

export type HostDecision = { ok: true } | { ok: false; reason: string };

/** Host-level check (before DNS): allow_external_http false => only allowlisted hosts. */
export function checkHost(hostname: string, policy: NetPolicy): HostDecision {
  const host = normalizeHost(hostname);
  if (!host) return { ok: false, reason: 'the URL has no host' };
  if (policy.allowExternalHttp) return { ok: true };
  const allow = [...(policy.allowedHosts ?? []), ...(policy.internalHosts ?? internalHostsFromEnv())];
  if (allow.some((p) => hostMatches(host, p))) return { ok: true };
  return {
    ok: false,
    reason: `blocked by policy: external HTTP is disabled (policies.allow_external_http: false) and host '${host}' is not in the tool's http.allowed_hosts or LOOM_INTERNAL_HOSTS`,
  };
}

/** Address-level check (after DNS): every resolved address must be public unless private networks are allowed. */
export function checkAddresses(host: string, addresses: string[], policy: NetPolicy): HostDecision {
  if (addresses.length === 0) return { ok: false, reason: `host '${host}' did not resolve to any address` };
  if (policy.allowPrivateNetwork) return { ok: true };
  for (const a of addresses) {
    const c = classifyAddress(a);
    if (c !== 'public') {
      return {
        ok: false,
        reason: `blocked by policy: host '${normalizeHost(host)}' resolves to ${a} (${c}); private, loopback and link-local addresses need http.allow_private_network: true on the tool`,
      };
    }
  }
  return { ok: true };
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => {
  const h = normalizeHost(host);
  if (net.isIP(h)) return [h];
  const res = await dns.promises.lookup(h, { all: true, verbatim: true });
  return res.map((r) => r.address);
};

export class PolicyBlockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyBlockedError';
  }
}

/** Full check of a URL: scheme, host allowlist, DNS resolution and every resolved address. */
export async function checkHttpTarget(url: string, policy: NetPolicy, resolve: Resolver = systemResolver): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: string }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, reason: `invalid URL '${url}'` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, reason: `blocked: scheme '${u.protocol}' is not http or https` };
  if (u.username || u.password) return { ok: false, reason: 'blocked: credentials in the URL are not allowed' };
  const hd = checkHost(u.hostname, policy);
  if (!hd.ok) return hd;
  let addresses: string[];
  try {
    addresses = await resolve(u.hostname);
  } catch (e) {
    return { ok: false, reason: `cannot resolve host '${normalizeHost(u.hostname)}': ${(e as Error).message}` };
  }
  const ad = checkAddresses(u.hostname, addresses, policy);
  return ad.ok ? { ok: true, addresses } : ad;
}

/**
 * A `lookup` for http.request that re-checks every address at connect time, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot reach a private address.
 */
export function guardedLookup(policy: NetPolicy, resolve: Resolver = systemResolver): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    resolve(hostname).then(
      (addrs) => {
        const d = checkAddresses(hostname, addrs, policy);
        if (!d.ok) return callback(Object.assign(new PolicyBlockedError(d.reason), { code: 'EPOLICY' }), '', 0);
        const fam = (a: string) => (net.isIPv6(a) ? 6 : 4);
        // Honour a requested family (4/6), as dns.lookup does; every address was checked above.
        const opts = (typeof options === 'number' ? { family: options } : options ?? {}) as { all?: boolean; family?: number | string };
        const want = opts.family === 4 || opts.family === 'IPv4' ? 4 : opts.family === 6 || opts.family === 'IPv6' ? 6 : 0;
        const usable = want ? addrs.filter((a) => fam(a) === want) : addrs;
        if (usable.length === 0) {
          return callback(Object.assign(new Error(`host '${normalizeHost(hostname)}' has no IPv${want} address`), { code: 'ENOTFOUND' }), '', 0);
        }
        if (opts.all) return callback(null, usable.map((a) => ({ address: a, family: fam(a) })));
        return callback(null, usable[0], fam(usable[0]));
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  }) as unknown as net.LookupFunction;
}
