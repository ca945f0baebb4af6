/**
 * Which IP addresses a download may connect to: public unicast only.
 *
 * Written out by hand rather than with `net.BlockList`, because a BlockList rule for
 * the IPv4-mapped range `::ffff:0:0/96` matches every plain IPv4 address too (Node 22
 * and 24), which refused all of the internet. Addresses that carry an IPv4 address
 * inside an IPv6 one (mapped, NAT64, 6to4) are judged by the IPv4 address they carry.
 */
import { isIP } from 'node:net';

type Range = readonly [network: bigint, prefix: number, label: string];

/** IPv4 ranges that are not globally reachable unicast (IANA special-purpose registry). */
const IPV4_REFUSED: readonly Range[] = [
  [ipv4('0.0.0.0'), 8, 'this-network'],
  [ipv4('10.0.0.0'), 8, 'private'],
  [ipv4('100.64.0.0'), 10, 'carrier-grade NAT'],
  [ipv4('127.0.0.0'), 8, 'loopback'],
  [ipv4('169.254.0.0'), 16, 'link-local (cloud metadata)'],
  [ipv4('172.16.0.0'), 12, 'private'],
  [ipv4('192.0.0.0'), 24, 'IETF protocol assignments'],
  [ipv4('192.0.2.0'), 24, 'documentation'],
  [ipv4('192.88.99.0'), 24, '6to4 relay'],
  [ipv4('192.168.0.0'), 16, 'private'],
  [ipv4('198.18.0.0'), 15, 'benchmarking'],
  [ipv4('198.51.100.0'), 24, 'documentation'],
  [ipv4('203.0.113.0'), 24, 'documentation'],
  [ipv4('224.0.0.0'), 4, 'multicast'],
  [ipv4('240.0.0.0'), 4, 'reserved'],
];

/** IPv6 ranges inside global unicast (2000::/3) that are still not public hosts. */
const IPV6_REFUSED_IN_GLOBAL: readonly Range[] = [
  [ipv6('2001::'), 23, 'IETF protocol assignments (Teredo, ORCHID)'],
  [ipv6('2001:db8::'), 32, 'documentation'],
  [ipv6('3fff::'), 20, 'documentation'],
];

const LOOPBACK_V4: Range = [ipv4('127.0.0.0'), 8, 'loopback'];
const GLOBAL_UNICAST: Range = [ipv6('2000::'), 3, 'global unicast'];
const IPV4_MAPPED: Range = [ipv6('::ffff:0:0'), 96, 'IPv4-mapped'];
const NAT64: Range = [ipv6('64:ff9b::'), 96, 'NAT64'];
const SIX_TO_FOUR: Range = [ipv6('2002::'), 16, '6to4'];

/** Why `address` may not be connected to, or undefined when it is a public unicast address. */
export function refusedAddress(address: string): string | undefined {
  // A zone id (`fe80::1%eth0`) names an interface, not another address.
  const bare = bareAddress(address).replace(/%.*$/, '');
  const kind = isIP(bare);
  if (kind === 4) return refusedIpv4(ipv4(bare), bare);
  if (kind !== 6) return `${address} is not an IP address`;
  const value = ipv6(bare);
  // These forms reach an IPv4 host: judge the host they reach.
  if (inRange(value, IPV4_MAPPED, 128) || inRange(value, NAT64, 128)) {
    return carried(refusedIpv4(value & 0xffff_ffffn, bare));
  }
  if (inRange(value, SIX_TO_FOUR, 128)) {
    return carried(refusedIpv4((value >> 80n) & 0xffff_ffffn, bare));
  }
  if (!inRange(value, GLOBAL_UNICAST, 128)) return `${bare} is not a global unicast IPv6 address`;
  const hit = IPV6_REFUSED_IN_GLOBAL.find((range) => inRange(value, range, 128));
  return hit === undefined ? undefined : `${bare} is a ${hit[2]} address`;
}

/** 127.0.0.0/8 or ::1: the simulated service's addresses, allowed to local mode only. */
export function isLoopbackAddress(address: string): boolean {
  const bare = bareAddress(address);
  const kind = isIP(bare);
  if (kind === 4) return inRange(ipv4(bare), LOOPBACK_V4, 32);
  return kind === 6 && ipv6(bare) === 1n;
}

/** A URL's host on this machine: `localhost` or a loopback address. */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareAddress(hostname);
  return host === 'localhost' || isLoopbackAddress(host);
}

/** An IPv6 address as a URL writes it (`[::1]`) without its brackets. */
export function bareAddress(address: string): string {
  return address.replace(/^\[|\]$/g, '');
}

function refusedIpv4(value: bigint, shown: string): string | undefined {
  const hit = IPV4_REFUSED.find((range) => inRange(value, range, 32));
  return hit === undefined ? undefined : `${shown} is a ${hit[2]} address`;
}

function carried(reason: string | undefined): string | undefined {
  return reason === undefined ? undefined : `${reason} (an IPv4 address carried in IPv6)`;
}

function inRange(value: bigint, [network, prefix]: Range, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === network >> shift;
}

function ipv4(text: string): bigint {
  return text.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Parses a valid IPv6 address (as `net.isIP` accepts it, dotted IPv4 tail included) to 128 bits. */
function ipv6(text: string): bigint {
  let body = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted?.[1] !== undefined) {
    const v4 = ipv4(dotted[1]);
    body = `${body.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = body.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}
