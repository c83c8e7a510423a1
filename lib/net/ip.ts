/**
 * IP address and CIDR literals, for the delivery network policy and for checking the allow-list in
 * the configuration: a leaf module, so that neither depends on the other. Node parses and matches
 * (`net.isIPv4`, the URL parser for IPv6, `net.BlockList`); what is left here is tolerance for the forms URLs and
 * configuration write (brackets, zone ids, prefixes) and the groups of an IPv6 address, which
 * tell where an IPv4 address is embedded.
 */
import { BlockList, isIPv4 } from 'node:net';

export type Family = 4 | 6;

export interface Ip {
  readonly family: Family;
  /** As `net` reads it: dotted-quad IPv4, or IPv6 in its canonical compressed form. */
  readonly text: string;
  /** IPv6 only: the eight 16-bit groups. */
  readonly groups: readonly number[];
}

export interface Cidr {
  readonly family: Family;
  readonly address: string;
  readonly bits: number;
}

/**
 * Parses a literal address, tolerating URL brackets and an IPv6 zone id. Strict: `net.isIPv4` takes
 * decimal dotted quads only (legacy octal, hex and short forms are normalised by the URL parser
 * before they get here, so anything else is not an address to trust).
 */
export function parseIp(input: string): Ip | undefined {
  let text = input.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) {
    if (zone === text.length - 1 || !text.includes(':')) return undefined;
    text = text.slice(0, zone);
  }
  if (!text.includes(':')) return isIPv4(text) ? { family: 4, text, groups: [] } : undefined;
  // IPv6 is validated by the URL parser, which also writes it canonically (lower-case hex, no
  // dotted quad, one `::` at most), rather than by net.isIP: its IPv6 expression takes about 3 ms
  // to compile on first use, which every cold start that checks an endpoint would pay.
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  return { family: 6, text: canonical, groups: groupsOf(canonical) };
}

function groupsOf(canonical: string): number[] {
  const [head = '', tail] = canonical.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** Throws an Error naming the entry when it is not an IP address or CIDR block. */
export function parseCidr(entry: string): Cidr {
  const [addr = '', prefix, extra] = entry.split('/');
  const ip = parseIp(addr);
  const max = ip?.family === 6 ? 128 : 32;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  if (!ip || extra !== undefined || bits < 0 || bits > max) {
    throw new Error(`invalid network allow-list entry: ${JSON.stringify(entry)}`);
  }
  return { family: ip.family, address: ip.text, bits };
}

/** The blocks as one `net.BlockList`. */
export function blockList(cidrs: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.bits, c.family === 4 ? 'ipv4' : 'ipv6');
  return list;
}

export function inList(list: BlockList, ip: Ip): boolean {
  return list.check(ip.text, ip.family === 4 ? 'ipv4' : 'ipv6');
}

/** The IPv4 address in two IPv6 groups. */
export function ipv4Of(high: number, low: number): Ip {
  const text = [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  return { family: 4, text, groups: [] };
}
