import dns from 'node:dns';
import type { BlockList, LookupFunction } from 'node:net';
import type { NetworkPolicyMode } from '../config';
import { blockList, type Ip, inList, ipv4Of, parseCidr, parseIp } from '../net/ip';

/**
 * Which destination addresses a notification may be sent to: public unicast only, unless allowed.
 * 'allow-private' is the local stage: loopback, RFC 1918, CGNAT and ULA are
 * allowed there, but link-local (cloud metadata), multicast, unspecified and
 * reserved ranges stay refused because nothing legitimate listens on them.
 */
export type { NetworkPolicyMode };

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

export interface NetworkPolicy {
  check(ip: string): PolicyVerdict;
}

export const ENDPOINT_FORBIDDEN = 'EENDPOINTFORBIDDEN';

export class EndpointForbiddenError extends Error {
  readonly code = ENDPOINT_FORBIDDEN;
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`endpoint address ${address} is forbidden: ${reason}`);
    this.name = 'EndpointForbiddenError';
  }
}

// 'private' ranges are allowed in 'allow-private' mode; 'never' ranges only via the allow-list.
type Category = 'private' | 'never';
interface SpecialRange {
  list: BlockList;
  category: Category;
  label: string;
}

const special = (entry: string, category: Category, label: string): SpecialRange => ({
  list: blockList([parseCidr(entry)]),
  category,
  label,
});

// First match wins, so more specific blocks come before the blocks containing them.
const V4_RANGES: readonly SpecialRange[] = [
  special('255.255.255.255', 'never', 'broadcast'),
  special('0.0.0.0/8', 'never', 'unspecified / this network'),
  special('10.0.0.0/8', 'private', 'private (RFC 1918)'),
  special('100.64.0.0/10', 'private', 'shared address space (CGNAT)'),
  special('127.0.0.0/8', 'private', 'loopback'),
  special('169.254.0.0/16', 'never', 'link-local'),
  special('172.16.0.0/12', 'private', 'private (RFC 1918)'),
  special('192.0.0.0/24', 'never', 'IETF protocol assignments'),
  special('192.0.2.0/24', 'never', 'documentation'),
  special('192.88.99.0/24', 'never', '6to4 relay anycast (deprecated)'),
  special('192.168.0.0/16', 'private', 'private (RFC 1918)'),
  special('198.18.0.0/15', 'never', 'benchmarking'),
  special('198.51.100.0/24', 'never', 'documentation'),
  special('203.0.113.0/24', 'never', 'documentation'),
  special('224.0.0.0/4', 'never', 'multicast'),
  special('240.0.0.0/4', 'never', 'reserved'),
];

const V6_RANGES: readonly SpecialRange[] = [
  special('::/128', 'never', 'unspecified'),
  special('::1/128', 'private', 'loopback'),
  // Deprecated (RFC 4291) and never routed as IPv4, so refuse instead of unwrapping.
  special('::/96', 'never', 'IPv4-compatible (deprecated)'),
  special('64:ff9b:1::/48', 'private', 'local-use NAT64'),
  special('100::/64', 'never', 'discard-only'),
  special('2001::/23', 'never', 'IETF protocol assignments (incl. Teredo)'),
  special('2001:db8::/32', 'never', 'documentation'),
  special('3fff::/20', 'never', 'documentation'),
  special('5f00::/16', 'never', 'SRv6 SIDs'),
  special('fc00::/7', 'private', 'unique local (ULA)'),
  special('fe80::/10', 'never', 'link-local'),
  special('fec0::/10', 'never', 'site-local (deprecated)'),
  special('ff00::/8', 'never', 'multicast'),
];

const GLOBAL_UNICAST_V6 = blockList([parseCidr('2000::/3')]);

/** IPv6 forms that carry an IPv4 destination: the embedded address is what gets reached. */
function embeddedIpv4(g: readonly number[]): { label: string; v4: Ip } | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    return { label: 'IPv4-mapped', v4: ipv4Of(g6, g7) };
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return { label: 'NAT64', v4: ipv4Of(g6, g7) };
  }
  if (g0 === 0x2002) return { label: '6to4', v4: ipv4Of(g1 ?? 0, g2 ?? 0) };
  return undefined;
}

export function createNetworkPolicy(opts: {
  mode: NetworkPolicyMode;
  allowList?: readonly string[];
}): NetworkPolicy {
  const allowList = blockList((opts.allowList ?? []).map(parseCidr));
  const refuse = (reason: string): PolicyVerdict => ({ allowed: false, reason });

  function classify(ip: Ip): PolicyVerdict {
    if (inList(allowList, ip)) return { allowed: true };
    const ranges = ip.family === 4 ? V4_RANGES : V6_RANGES;
    const hit = ranges.find((r) => inList(r.list, ip));
    if (hit) {
      if (hit.category === 'private' && opts.mode === 'allow-private') return { allowed: true };
      return refuse(`${hit.label} address`);
    }
    if (ip.family === 6) {
      const embedding = embeddedIpv4(ip.groups);
      if (embedding) {
        const verdict = classify(embedding.v4);
        return verdict.allowed
          ? verdict
          : refuse(`${embedding.label} address embedding ${embedding.v4.text}: ${verdict.reason}`);
      }
      if (!inList(GLOBAL_UNICAST_V6, ip)) return refuse('reserved IPv6 address (outside 2000::/3)');
    }
    return { allowed: true };
  }

  return {
    check(address) {
      const ip = parseIp(address);
      return ip ? classify(ip) : refuse(`not an IP address: ${JSON.stringify(address)}`);
    },
  };
}

/** Strips the brackets that URL.hostname keeps around IPv6 literals. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Resolves a URL hostname and refuses it if any address is forbidden (a name
 * with one bad address is treated as bad, since the connection could land there).
 * Pass `new URL(x).hostname`: the URL parser has already normalised legacy IPv4 forms.
 */
export async function resolveAndCheck(
  hostname: string,
  policy: NetworkPolicy,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = unbracket(hostname);
  const literal = parseIp(host);
  if (literal) {
    const verdict = policy.check(host);
    if (!verdict.allowed) throw new EndpointForbiddenError(host, verdict.reason);
    return { address: host, family: literal.family };
  }
  const addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  return firstAllowed(addresses, policy);
}

function firstAllowed(addresses: readonly dns.LookupAddress[], policy: NetworkPolicy) {
  for (const { address } of addresses) {
    const verdict = policy.check(address);
    if (!verdict.allowed) throw new EndpointForbiddenError(address, verdict.reason);
  }
  const first = addresses[0];
  if (!first) throw new EndpointForbiddenError('', 'name resolved to no addresses');
  return { address: first.address, family: first.family === 6 ? 6 : 4 } as const;
}

/**
 * A `lookup` for http.request / net.connect that applies the policy at connect
 * time, so the address checked is the one connected to (defeats DNS rebinding).
 * Node does not call it for literal IPs: check those before connecting.
 */
export function createPolicyLookup(policy: NetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', undefined);
      let first: { address: string; family: 4 | 6 };
      try {
        first = firstAllowed(addresses, policy);
      } catch (forbidden) {
        return callback(forbidden as EndpointForbiddenError, '', undefined);
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
