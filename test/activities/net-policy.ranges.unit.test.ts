/**
 * Edges of the address classification now that the IANA ranges come from ipaddr.js: CIDR
 * boundaries, every spelling of IPv4 inside IPv6, the ranges that changed class, and a guard that
 * no special-purpose range ipaddr.js knows is treated as public unless listed here on purpose.
 */
import * as ipaddr from 'ipaddr.js';
import { classifyAddress, hostMatches, parseIPv6 } from '../../src/governance/network';

describe('IPv4 CIDR boundaries', () => {
  test.each([
    ['0.255.255.255', 'unspecified'],
    ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['127.0.0.0', 'loopback'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.254.0.0', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['192.167.255.255', 'public'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.18.0.0', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('%s is %s', (ip, cls) => expect(classifyAddress(ip)).toBe(cls));
});

describe('IPv4 inside IPv6', () => {
  test.each([
    // IPv4-mapped, dotted and hex, bracketed, expanded, upper case
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['[::ffff:a9fe:a9fe]', 'link-local'],
    ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
    ['::FFFF:7F00:1', 'loopback'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:255.255.255.255', 'broadcast'],
    // IPv4-compatible (deprecated ::/96): the IPv4 is judged, in both spellings
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::8.8.8.8', 'public'],
    ['::2', 'unspecified'],
    // IPv4-translated, NAT64 (well-known and local-use prefixes), 6to4
    ['::ffff:0:8.8.8.8', 'public'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b:1::10.0.0.1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['2002:0a00:0001::', 'private'],
    ['2002:a9fe:a9fe::', 'link-local'],
  ])('%s is %s', (ip, cls) => expect(classifyAddress(ip)).toBe(cls));

  test('::a.b.c.d is :: plus the IPv4 (not ::ffff:a.b.c.d) when parsed and matched', () => {
    expect(parseIPv6('::8.8.8.8')).toEqual([0, 0, 0, 0, 0, 0, 0x0808, 0x0808]);
    expect(hostMatches('::8.8.8.8', '::808:808')).toBe(true);
    expect(hostMatches('::8.8.8.8', '::ffff:8.8.8.8')).toBe(false);
    expect(hostMatches('[::FFFF:7F00:1]', '::ffff:127.0.0.1')).toBe(true);
  });
});

describe('IPv6 range boundaries', () => {
  test.each([
    ['fbff:ffff::1', 'public'],
    ['fc00::', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    ['fe7f::1', 'public'],
    ['fe80::', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::', 'private'],
    ['feff::1', 'private'],
    ['ff00::', 'multicast'],
    ['::1', 'loopback'],
    ['::0:1', 'loopback'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['2001:1ff:ffff::1', 'reserved'], // last /32 of 2001::/23
    ['2001:200::1', 'public'], // just past 2001::/23
    ['2001:db8:ffff::1', 'reserved'],
    ['2001:4860:4860::8888', 'public'],
  ])('%s is %s', (ip, cls) => expect(classifyAddress(ip)).toBe(cls));

  test('ranges that were public before ipaddr.js and are now refused', () => {
    expect(classifyAddress('192.88.99.1')).toBe('reserved'); // deprecated 6to4 relay anycast
    expect(classifyAddress('2001:2::1')).toBe('reserved'); // benchmarking, like 198.18.0.0/15
    expect(classifyAddress('2001:10::1')).toBe('reserved'); // ORCHID
    expect(classifyAddress('2001:20::1')).toBe('reserved'); // ORCHIDv2
    expect(classifyAddress('5f00::1')).toBe('reserved'); // SRv6 SIDs
    expect(classifyAddress('3fff::1')).toBe('reserved'); // documentation (RFC 9637)
  });

  test('globally reachable special ranges stay public', () => {
    for (const ip of ['192.175.48.1', '192.31.196.1', '192.52.193.1', '2001:4:112::1', '2620:4f:8000::1', '2001:3::1', '2001:0:4136:e378::1']) {
      expect([ip, classifyAddress(ip)]).toEqual([ip, 'public']);
    }
  });
});

test('every special-purpose range ipaddr.js knows is non-public, except the reachable ones listed on purpose', () => {
  const PUBLIC_ON_PURPOSE = new Set(['as112', 'amt', 'as112v6', 'teredo']);
  // Ranges that carry an IPv4 are judged by it: their first address embeds 0.0.0.0, which is not public.
  type Ranges = Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number] | Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>>;
  const all = { ...(ipaddr.IPv4.prototype as unknown as { SpecialRanges: Ranges }).SpecialRanges, ...(ipaddr.IPv6.prototype as unknown as { SpecialRanges: Ranges }).SpecialRanges };
  const seen: string[] = [];
  for (const [name, subnets] of Object.entries(all)) {
    const list = (Array.isArray(subnets[0]) ? subnets : [subnets]) as Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
    for (const [base] of list) {
      if (base.range() !== name) continue; // shadowed by a narrower range listed first (2001:: is teredo, not 2001::/23)
      const cls = classifyAddress(base.toNormalizedString());
      seen.push(name);
      expect([name, base.toString(), cls === 'public']).toEqual([name, base.toString(), PUBLIC_ON_PURPOSE.has(name)]);
    }
  }
  expect(seen).toEqual(expect.arrayContaining(['private', 'loopback', 'uniqueLocal', 'linkLocal', 'ipv4Mapped', 'rfc6052']));
});
