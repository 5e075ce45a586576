/**
 * Network policy for http tools (the Agent Definition Specification's `policies.allow_external_http`): host allowlists and
 * private/loopback/link-local address classification for IPv4 and IPv6 (the IANA special-purpose
 * ranges come from ipaddr.js; the table below says what each means here). Everything here is pure
 * except `checkHttpTarget`/`guardedLookup`, which resolve DNS through an injectable resolver.
 */
import * as dns from 'dns';
import * as net from 'net';
import * as ipaddr from 'ipaddr.js';
import { loomEnv } from '../platform/env';

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

/** What each ipaddr.js range name means for the policy; a name not listed here (a range a later ipaddr.js adds) is 'reserved': refused, never allowed by default. */
const V4_RANGES: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'private',
  reserved: 'reserved',
  // Globally reachable anycast services (AS112 DNS sinks, AMT relays).
  as112: 'public',
  amt: 'public',
};

const V6_RANGES: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  multicast: 'multicast',
  uniqueLocal: 'private', // fc00::/7
  deprecatedSiteLocal: 'private', // fec0::/10
  teredo: 'public', // 2001::/32: reached through a public relay
  amt: 'public',
  as112v6: 'public',
  discard: 'reserved',
  benchmarking: 'reserved',
  deprecatedOrchid: 'reserved',
  orchid2: 'reserved',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'reserved',
  reserved: 'reserved', // 2001::/23 protocol assignments, 2001:db8::/32 and 3fff::/20 documentation
};

/** IPv6 ranges that carry an IPv4 address: the policy judges the embedded IPv4. */
const EMBEDS_V4: Record<string, (parts: number[]) => [number, number]> = {
  ipv4Mapped: (g) => [g[6], g[7]], // ::ffff:a.b.c.d
  rfc6145: (g) => [g[6], g[7]], // IPv4-translated ::ffff:0:a.b.c.d
  rfc6052: (g) => [g[6], g[7]], // NAT64 64:ff9b::/96 and 64:ff9b:1::/48, IPv4 in the low 32 bits
  '6to4': (g) => [g[1], g[2]], // 2002:V4ADDR::/48
};

const classOf = (table: Record<string, AddressClass>, range: string): AddressClass => (Object.hasOwn(table, range) ? table[range] : 'reserved');

/** Classify a dotted-quad IPv4 address (other spellings such as `127.1` are 'invalid'). */
export function classifyIPv4(ip: string): AddressClass {
  if (!net.isIPv4(ip)) return 'invalid';
  return classOf(V4_RANGES, ipaddr.IPv4.parse(ip).range());
}

function stripIPv6(input: string): string {
  let ip = input.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const pct = ip.indexOf('%');
  return pct >= 0 ? ip.slice(0, pct) : ip;
}

/**
 * Parse an IPv6 address (with optional brackets, zone and embedded IPv4) into 8 16-bit groups.
 * Node's validator decides what is an address; a dotted IPv4 tail is rewritten as two hex groups
 * first, because ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d` (RFC 4291 says `::` + the IPv4).
 */
export function parseIPv6(input: string): number[] | undefined {
  const ip = stripIPv6(input);
  if (!net.isIPv6(ip)) return undefined;
  const hex = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  return ipaddr.IPv6.parse(hex).parts.slice();
}

const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

export function classifyIPv6(ip: string): AddressClass {
  const g = parseIPv6(ip);
  if (!g) return 'invalid';
  const addr = new ipaddr.IPv6(g);
  const range = addr.range();
  // The deprecated IPv4-compatible ::a.b.c.d (::/96, after :: and ::1): judge the IPv4 as well.
  if (range === 'unicast' && addr.match(IPV4_COMPATIBLE)) return classifyIPv4([g[6] >>> 8, g[6] & 0xff, g[7] >>> 8, g[7] & 0xff].join('.'));
  const embedded = Object.hasOwn(EMBEDS_V4, range) ? EMBEDS_V4[range] : undefined;
  if (embedded) {
    const [hi, lo] = embedded(g);
    return classifyIPv4([hi >>> 8, hi & 0xff, lo >>> 8, lo & 0xff].join('.'));
  }
  return classOf(V6_RANGES, range);
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
  return loomEnv('LOOM_INTERNAL_HOSTS', env);
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
