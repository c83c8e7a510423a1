import { describe, expect, it } from 'vitest';
import {
  createNetworkPolicy,
  createPolicyLookup,
  EndpointForbiddenError,
  type NetworkPolicy,
  resolveAndCheck,
} from '../../lib/delivery/network-policy';
import { parseIp } from '../../lib/net/ip';

const publicOnly = createNetworkPolicy({ mode: 'public-only' });
const allowPrivate = createNetworkPolicy({ mode: 'allow-private' });

// Nothing here connects anywhere: public addresses are only checked, and the
// only DNS name resolved is localhost.
async function verdict(policy: NetworkPolicy, hostname: string): Promise<boolean> {
  try {
    await resolveAndCheck(hostname, policy);
    return true;
  } catch (err) {
    if (err instanceof EndpointForbiddenError) return false;
    throw err;
  }
}

interface Case {
  input: string;
  publicOnly: boolean;
  allowPrivate: boolean;
}

// Hosts written in URLs: the WHATWG parser normalises legacy IPv4 forms first.
const urlCases: (Case & { hostname: string })[] = [
  { input: 'http://2130706433/', hostname: '127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: 'http://0177.0.0.1/', hostname: '127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: 'http://0x7f.1/', hostname: '127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: 'http://0x7f000001:8080/', hostname: '127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: 'http://127.1/', hostname: '127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: 'http://012.0.0.1/', hostname: '10.0.0.1', publicOnly: false, allowPrivate: true },
  {
    input: 'http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/',
    hostname: '169.254.169.254',
    publicOnly: false,
    allowPrivate: false,
  },
  { input: 'http://0/', hostname: '0.0.0.0', publicOnly: false, allowPrivate: false },
  { input: 'http://1572395042/', hostname: '93.184.216.34', publicOnly: true, allowPrivate: true },
  { input: 'http://[::1]:8080/', hostname: '[::1]', publicOnly: false, allowPrivate: true },
  { input: 'http://[0:0:0:0:0:0:0:1]/', hostname: '[::1]', publicOnly: false, allowPrivate: true },
  {
    input: 'http://[::ffff:127.0.0.1]/',
    hostname: '[::ffff:7f00:1]',
    publicOnly: false,
    allowPrivate: true,
  },
  { input: 'http://[fe80::1]/', hostname: '[fe80::1]', publicOnly: false, allowPrivate: false },
  {
    input: 'https://[2606:4700::1111]/hook',
    hostname: '[2606:4700::1111]',
    publicOnly: true,
    allowPrivate: true,
  },
];

const ipCases: Case[] = [
  // IPv4 special-purpose ranges
  { input: '127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: '127.255.255.254', publicOnly: false, allowPrivate: true },
  { input: '10.1.2.3', publicOnly: false, allowPrivate: true },
  { input: '172.16.0.1', publicOnly: false, allowPrivate: true },
  { input: '172.31.255.255', publicOnly: false, allowPrivate: true },
  { input: '172.32.0.1', publicOnly: true, allowPrivate: true },
  { input: '192.168.1.1', publicOnly: false, allowPrivate: true },
  { input: '100.64.0.1', publicOnly: false, allowPrivate: true },
  { input: '100.127.255.255', publicOnly: false, allowPrivate: true },
  { input: '100.128.0.1', publicOnly: true, allowPrivate: true },
  { input: '169.254.169.254', publicOnly: false, allowPrivate: false },
  { input: '0.0.0.0', publicOnly: false, allowPrivate: false },
  { input: '0.1.2.3', publicOnly: false, allowPrivate: false },
  { input: '192.0.0.8', publicOnly: false, allowPrivate: false },
  { input: '192.0.2.1', publicOnly: false, allowPrivate: false },
  { input: '192.88.99.1', publicOnly: false, allowPrivate: false },
  { input: '198.18.0.1', publicOnly: false, allowPrivate: false },
  { input: '198.19.255.255', publicOnly: false, allowPrivate: false },
  { input: '198.51.100.7', publicOnly: false, allowPrivate: false },
  { input: '203.0.113.9', publicOnly: false, allowPrivate: false },
  { input: '224.0.0.1', publicOnly: false, allowPrivate: false },
  { input: '239.255.255.250', publicOnly: false, allowPrivate: false },
  { input: '240.0.0.1', publicOnly: false, allowPrivate: false },
  { input: '255.255.255.255', publicOnly: false, allowPrivate: false },
  { input: '93.184.216.34', publicOnly: true, allowPrivate: true },
  { input: '8.8.8.8', publicOnly: true, allowPrivate: true },
  // IPv6 loopback / unspecified in several spellings
  { input: '::1', publicOnly: false, allowPrivate: true },
  { input: '0:0:0:0:0:0:0:1', publicOnly: false, allowPrivate: true },
  { input: '0000:0000:0000:0000:0000:0000:0000:0001', publicOnly: false, allowPrivate: true },
  { input: '::', publicOnly: false, allowPrivate: false },
  { input: '0:0::0', publicOnly: false, allowPrivate: false },
  // IPv4-mapped: the embedded IPv4 decides
  { input: '::ffff:127.0.0.1', publicOnly: false, allowPrivate: true },
  { input: '::ffff:7f00:1', publicOnly: false, allowPrivate: true },
  { input: '::FFFF:7F00:0001', publicOnly: false, allowPrivate: true },
  { input: '0:0:0:0:0:ffff:a00:1', publicOnly: false, allowPrivate: true },
  { input: '::ffff:169.254.169.254', publicOnly: false, allowPrivate: false },
  { input: '::ffff:93.184.216.34', publicOnly: true, allowPrivate: true },
  // IPv4-compatible (deprecated) is refused outright
  { input: '::7f00:1', publicOnly: false, allowPrivate: false },
  { input: '::8.8.8.8', publicOnly: false, allowPrivate: false },
  // NAT64 well-known prefix: embedded IPv4 decides; local-use prefix counts as private
  { input: '64:ff9b::7f00:1', publicOnly: false, allowPrivate: true },
  { input: '64:ff9b::169.254.169.254', publicOnly: false, allowPrivate: false },
  { input: '64:ff9b::93.184.216.34', publicOnly: true, allowPrivate: true },
  { input: '64:ff9b:1::a00:1', publicOnly: false, allowPrivate: true },
  // 6to4: embedded IPv4 sits in bits 16..47
  { input: '2002:7f00:1::', publicOnly: false, allowPrivate: true },
  { input: '2002:c0a8:101::1', publicOnly: false, allowPrivate: true },
  { input: '2002:a9fe:a9fe::1', publicOnly: false, allowPrivate: false },
  { input: '2002:5db8:d822::1', publicOnly: true, allowPrivate: true },
  // link-local (with and without zone), site-local, ULA, multicast
  { input: 'fe80::1', publicOnly: false, allowPrivate: false },
  { input: 'fe80::1%eth0', publicOnly: false, allowPrivate: false },
  { input: 'FE80::abcd:1%25', publicOnly: false, allowPrivate: false },
  { input: 'febf:ffff::1', publicOnly: false, allowPrivate: false },
  { input: 'fec0::1', publicOnly: false, allowPrivate: false },
  { input: 'fc00::1', publicOnly: false, allowPrivate: true },
  { input: 'fd12:3456:789a::1', publicOnly: false, allowPrivate: true },
  { input: 'ff02::1', publicOnly: false, allowPrivate: false },
  { input: 'ff05::1:3', publicOnly: false, allowPrivate: false },
  // documentation, discard, IETF protocol assignments (Teredo), outside 2000::/3
  { input: '2001:db8::1', publicOnly: false, allowPrivate: false },
  { input: '2001:0db8:0000:0000:0000:0000:0000:0001', publicOnly: false, allowPrivate: false },
  { input: '3fff::1', publicOnly: false, allowPrivate: false },
  { input: '100::1', publicOnly: false, allowPrivate: false },
  { input: '2001::1', publicOnly: false, allowPrivate: false },
  { input: '2001:1ff::1', publicOnly: false, allowPrivate: false },
  { input: '4000::1', publicOnly: false, allowPrivate: false },
  // public IPv6
  { input: '2606:4700::1111', publicOnly: true, allowPrivate: true },
  { input: '2606:4700:4700:0:0:0:0:1111', publicOnly: true, allowPrivate: true },
  { input: '[2a00:1450:4001:82a::200e]', publicOnly: true, allowPrivate: true },
  { input: '2001:4860:1:2:3:4:93.184.216.34', publicOnly: true, allowPrivate: true },
  // not addresses at all: refused rather than guessed at
  { input: '0177.0.0.1', publicOnly: false, allowPrivate: false },
  { input: '127.1', publicOnly: false, allowPrivate: false },
  { input: '256.1.1.1', publicOnly: false, allowPrivate: false },
  { input: '1::2::3', publicOnly: false, allowPrivate: false },
  { input: '12345::1', publicOnly: false, allowPrivate: false },
  { input: '1:2:3:4:5:6:7', publicOnly: false, allowPrivate: false },
  { input: '1:2:3:4:5:6:7:8:9', publicOnly: false, allowPrivate: false },
  { input: '::ffff:1.2.3', publicOnly: false, allowPrivate: false },
  { input: '1.2.3.4::', publicOnly: false, allowPrivate: false },
  { input: 'fe80::1%', publicOnly: false, allowPrivate: false },
  { input: 'g::1', publicOnly: false, allowPrivate: false },
  { input: '', publicOnly: false, allowPrivate: false },
];

describe('network policy corpus', () => {
  it('covers at least 30 address forms', () => {
    expect(urlCases.length + ipCases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(urlCases)('URL $input → $hostname', async (c) => {
    const { hostname } = new URL(c.input);
    expect(hostname).toBe(c.hostname);
    expect(await verdict(publicOnly, hostname)).toBe(c.publicOnly);
    expect(await verdict(allowPrivate, hostname)).toBe(c.allowPrivate);
  });

  it.each(ipCases)('address "$input"', (c) => {
    expect(publicOnly.check(c.input).allowed).toBe(c.publicOnly);
    expect(allowPrivate.check(c.input).allowed).toBe(c.allowPrivate);
  });

  it('resolves localhost to loopback and refuses it outside the local stage', async () => {
    expect(await verdict(publicOnly, 'localhost')).toBe(false);
    expect(await verdict(allowPrivate, 'localhost')).toBe(true);
  });
});

describe('parseIp', () => {
  it('reads compressed, expanded, dotted-quad and bracketed IPv6 as the same groups', () => {
    const forms = ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:127.0.0.1', '[::FFFF:7F00:1]'];
    const parsed = forms.map((f) => parseIp(f));
    expect(new Set(parsed.map((ip) => ip?.text))).toEqual(new Set(['::ffff:7f00:1']));
    for (const ip of parsed) expect(ip?.groups).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
  });

  it('handles :: at either end and seven explicit groups', () => {
    expect(parseIp('1:2:3:4:5:6:7::')?.groups).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIp('::2:3:4:5:6:7:8')?.groups).toEqual([0, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('drops a zone id and refuses an empty one', () => {
    expect(parseIp('fe80::1%eth0')?.groups).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIp('fe80::1%')).toBeUndefined();
    expect(parseIp('127.0.0.1%eth0')).toBeUndefined();
  });
});

describe('verdict reasons', () => {
  it('names the range, including for embedded IPv4', () => {
    expect(publicOnly.check('169.254.169.254')).toEqual({
      allowed: false,
      reason: 'link-local address',
    });
    const nat64 = publicOnly.check('64:ff9b::a9fe:a9fe');
    expect(nat64.allowed).toBe(false);
    if (!nat64.allowed) expect(nat64.reason).toMatch(/NAT64.*169\.254\.169\.254.*link-local/);
  });
});

describe('allow-list', () => {
  const policy = createNetworkPolicy({
    mode: 'public-only',
    allowList: ['10.20.0.0/16', 'fd00::/8', '192.168.1.10', '169.254.10.0/24'],
  });

  it('overrides private and link-local ranges it names, and nothing else', () => {
    expect(policy.check('10.20.5.5').allowed).toBe(true);
    expect(policy.check('10.21.0.1').allowed).toBe(false);
    expect(policy.check('192.168.1.10').allowed).toBe(true);
    expect(policy.check('192.168.1.11').allowed).toBe(false);
    expect(policy.check('169.254.10.7').allowed).toBe(true);
    expect(policy.check('169.254.169.254').allowed).toBe(false);
    expect(policy.check('fd00::1').allowed).toBe(true);
    expect(policy.check('fc00::1').allowed).toBe(false);
    expect(policy.check('127.0.0.1').allowed).toBe(false);
  });

  it('applies IPv4 entries to IPv4 embedded in IPv6', () => {
    expect(policy.check('::ffff:10.20.1.1').allowed).toBe(true);
    expect(policy.check('64:ff9b::a14:101').allowed).toBe(true);
    expect(policy.check('::ffff:10.21.1.1').allowed).toBe(false);
  });

  it('applies in resolveAndCheck for URL hosts', async () => {
    expect(await verdict(policy, new URL('http://[::ffff:10.20.0.9]/').hostname)).toBe(true);
    expect(await verdict(policy, new URL('http://0x0a.20.0.9/').hostname)).toBe(true);
  });

  it('masks host bits in an entry', () => {
    const masked = createNetworkPolicy({ mode: 'public-only', allowList: ['10.20.30.40/16'] });
    expect(masked.check('10.20.99.1').allowed).toBe(true);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/8/8', '10.0.0.0/', 'fd00::/x'])(
    'rejects invalid entry %s at construction',
    (entry) => {
      expect(() => createNetworkPolicy({ mode: 'public-only', allowList: [entry] })).toThrow(
        /invalid network allow-list entry/,
      );
    },
  );
});

describe('resolveAndCheck', () => {
  it('returns the literal address and family without DNS', async () => {
    await expect(resolveAndCheck('[2606:4700::1111]', publicOnly)).resolves.toEqual({
      address: '2606:4700::1111',
      family: 6,
    });
    await expect(resolveAndCheck('93.184.216.34', publicOnly)).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('throws a typed error carrying the code and the refused address', async () => {
    const err = await resolveAndCheck('localhost', publicOnly).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EndpointForbiddenError);
    expect(err).toMatchObject({ code: 'EENDPOINTFORBIDDEN', reason: 'loopback address' });
  });
});

describe('createPolicyLookup', () => {
  const lookup = (policy: NetworkPolicy, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      createPolicyLookup(policy)('localhost', { all }, (err, address, family) =>
        resolve({ err, address, family }),
      ),
    );

  it('refuses forbidden addresses with code EENDPOINTFORBIDDEN', async () => {
    const { err } = await lookup(publicOnly, false);
    expect(err?.code).toBe('EENDPOINTFORBIDDEN');
    expect((await lookup(publicOnly, true)).err?.code).toBe('EENDPOINTFORBIDDEN');
  });

  it('answers in the shape asked for (single or all)', async () => {
    const single = await lookup(allowPrivate, false);
    expect(single.err).toBeNull();
    expect(typeof single.address).toBe('string');
    expect([4, 6]).toContain(single.family);
    const all = await lookup(allowPrivate, true);
    expect(all.err).toBeNull();
    expect(Array.isArray(all.address)).toBe(true);
  });
});
