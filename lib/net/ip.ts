/**
 * IP address and CIDR literals as numbers, for the delivery network policy and for checking the
 * allow-list in the configuration: a leaf module, so that neither depends on the other.
 */
export type Family = 4 | 6;
export interface Ip {
  family: Family;
  value: bigint;
}
export interface Cidr extends Ip {
  bits: number;
}

export const width = (family: Family): number => (family === 4 ? 32 : 128);

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // Strict decimal only: legacy octal/hex/short forms are normalised by the URL
    // parser before they get here, so anything else is not an address we trust.
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseGroups(text: string): bigint[] | undefined {
  if (text === '') return [];
  const groups: bigint[] = [];
  const parts = text.split(':');
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(BigInt(`0x${part}`));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0] ?? '');
  const tail = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (!head || !tail) return undefined;
  // A dotted quad is only valid as the final 32 bits.
  if (halves.length === 2 && halves[0]?.includes('.')) return undefined;
  const explicit = head.length + tail.length;
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return undefined;
  const groups = [...head, ...Array<bigint>(8 - explicit).fill(0n), ...tail];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses a literal address, tolerating URL brackets and an IPv6 zone id. */
export function parseIp(input: string): Ip | undefined {
  let text = input.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.includes(':')) {
    const zone = text.indexOf('%');
    if (zone !== -1) {
      if (zone === text.length - 1) return undefined;
      text = text.slice(0, zone);
    }
    const value = parseIpv6(text);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { family: 4, value };
}

/** Throws an Error naming the entry when it is not an IP address or CIDR block. */
export function parseCidr(entry: string): Cidr {
  const [addr = '', prefix, extra] = entry.split('/');
  const ip = parseIp(addr);
  const max = ip ? width(ip.family) : 0;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  if (!ip || extra !== undefined || bits < 0 || bits > max) {
    throw new Error(`invalid network allow-list entry: ${JSON.stringify(entry)}`);
  }
  return { ...ip, bits };
}
