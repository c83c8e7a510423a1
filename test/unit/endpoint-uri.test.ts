import { describe, expect, it } from 'vitest';
import { validateEndpointUri } from '../../lib/domain/endpoint-uri';
import { badRequest } from '../support/errors';

/** An absolute http URI of exactly `length` characters. */
function uriOfLength(length: number, scheme = 'https'): string {
  const head = `${scheme}://consumer.example.com/`;
  const uri = `${head}${'p'.repeat(length - head.length)}`;
  expect(uri).toHaveLength(length);
  return uri;
}

describe('validateEndpointUri: accepted', () => {
  const valid: ReadonlyArray<
    readonly [string, string, { protocol: string; hostname: string; port?: string }]
  > = [
    [
      'https with path',
      'https://consumer.example.com/events',
      { protocol: 'https:', hostname: 'consumer.example.com' },
    ],
    [
      'http with path',
      'http://consumer.example.com/events',
      { protocol: 'http:', hostname: 'consumer.example.com' },
    ],
    ['host only', 'http://consumer', { protocol: 'http:', hostname: 'consumer' }],
    [
      'host with trailing slash',
      'https://consumer.example.com/',
      { protocol: 'https:', hostname: 'consumer.example.com' },
    ],
    [
      'port',
      'http://consumer.example.com:8080/events',
      { protocol: 'http:', hostname: 'consumer.example.com', port: '8080' },
    ],
    ['port without path', 'https://h:9443', { protocol: 'https:', hostname: 'h', port: '9443' }],
    ['deep path', 'https://h/a/b/c/d/e', { protocol: 'https:', hostname: 'h' }],
    ['query', 'https://h/events?x=1&y=two', { protocol: 'https:', hostname: 'h' }],
    ['query without path', 'https://h?x=1', { protocol: 'https:', hostname: 'h' }],
    ['empty query', 'https://h/events?', { protocol: 'https:', hostname: 'h' }],
    ['@ in the path is not user info', 'https://h/users/a@b', { protocol: 'https:', hostname: 'h' }],
    ['@ in the query is not user info', 'https://h/cb?mail=a@b.c', { protocol: 'https:', hostname: 'h' }],
    ['percent-encoded path', 'https://h/a%20b', { protocol: 'https:', hostname: 'h' }],
    [
      'IPv4 literal host',
      'http://127.0.0.1:9087/events',
      { protocol: 'http:', hostname: '127.0.0.1', port: '9087' },
    ],
    ['IPv4 literal public', 'http://93.184.216.34/events', { protocol: 'http:', hostname: '93.184.216.34' }],
    ['IPv6 literal host', 'http://[::1]:8080/x', { protocol: 'http:', hostname: '[::1]', port: '8080' }],
    ['IPv6 literal full', 'https://[2001:db8::1]/events', { protocol: 'https:', hostname: '[2001:db8::1]' }],
    ['IPv6 literal without port', 'http://[fd00::5]/', { protocol: 'http:', hostname: '[fd00::5]' }],
    [
      'upper-case scheme',
      'HTTPS://consumer.example.com/events',
      { protocol: 'https:', hostname: 'consumer.example.com' },
    ],
    ['mixed-case scheme', 'Http://h/', { protocol: 'http:', hostname: 'h' }],
    [
      'upper-case host',
      'https://Consumer.Example.COM/',
      { protocol: 'https:', hostname: 'consumer.example.com' },
    ],
    [
      'hyphen and digits in host',
      'https://node-7.east-edge-10.example/',
      { protocol: 'https:', hostname: 'node-7.east-edge-10.example' },
    ],
  ];

  it.each(valid)('%s: %s', (_name, input, expected) => {
    const url = validateEndpointUri(input);
    expect(url).toBeInstanceOf(URL);
    expect(url.protocol).toBe(expected.protocol);
    expect(url.hostname).toBe(expected.hostname);
    if (expected.port !== undefined) expect(url.port).toBe(expected.port);
    expect(url.username).toBe('');
    expect(url.password).toBe('');
    expect(url.hash).toBe('');
  });

  it('accepts exactly 2048 characters', () => {
    expect(validateEndpointUri(uriOfLength(2048)).hostname).toBe('consumer.example.com');
  });

  it('accepts exactly 2048 characters with http', () => {
    expect(validateEndpointUri(uriOfLength(2048, 'http')).protocol).toBe('http:');
  });
});

describe('validateEndpointUri: refused', () => {
  const notStrings: ReadonlyArray<readonly [string, unknown]> = [
    ['undefined', undefined],
    ['null', null],
    ['a number', 8080],
    ['a boolean', false],
    ['an object', { href: 'https://h/' }],
    ['an array', ['https://h/']],
    ['a URL object', new URL('https://h/')],
  ];

  it.each(notStrings)('refuses %s', (_name, input) => {
    const error = badRequest(() => validateEndpointUri(input));
    expect(error.detail).toContain('EndpointUri');
  });

  const refused: ReadonlyArray<readonly [string, string]> = [
    ['empty', ''],
    ['relative path', '/events'],
    ['relative without slash', 'events'],
    ['scheme-relative', '//consumer.example.com/events'],
    ['host without scheme', 'consumer.example.com/events'],
    ['ftp', 'ftp://consumer.example.com/events'],
    ['ws', 'ws://consumer.example.com/events'],
    ['file', 'file:///etc/passwd'],
    ['mailto', 'mailto:ops@example.com'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/plain,hello'],
    ['missing slash after scheme', 'http:/x'],
    ['no slashes after scheme', 'http:x'],
    ['three slashes (empty authority)', 'http:///x'],
    ['empty host', 'http://'],
    ['empty host with path', 'https:///events'],
    ['port without host', 'http://:8080/x'],
    ['user and password', 'http://u:p@h/'],
    ['user only', 'http://u@h/'],
    ['empty user info', 'http://@h/'],
    ['empty password', 'http://u:@h/'],
    ['user info with port', 'https://u:p@h:8443/events'],
    ['user info without path', 'https://u@h'],
    ['fragment', 'http://h/#x'],
    ['empty fragment', 'http://h/#'],
    ['fragment after query', 'https://h/events?x=1#top'],
    ['fragment without path', 'https://h#x'],
    ['bad port', 'http://h:99999/'],
    ['non-numeric port', 'http://h:port/'],
    ['space in path', 'https://h/a b'],
    ['space in host', 'https://consumer example.com/'],
    ['space in query', 'https://h/?q=a b'],
    ['leading space', ' https://h/events'],
    ['trailing space', 'https://h/events '],
    ['only spaces', '   '],
    ['tab inside', 'https://h/a\tb'],
    ['leading tab', '\thttps://h/'],
    ['newline inside', 'https://h/a\nb'],
    ['trailing newline', 'https://h/events\n'],
    ['carriage return', 'https://h/a\rb'],
    ['NUL', 'https://h/a\u0000b'],
    ['leading NUL', '\u0000https://h/'],
    ['BEL', 'https://h/\u0007'],
    ['unit separator', 'https://h/\u001f'],
    ['DEL', 'https://h/a\u007fb'],
    ['no-break space', 'https://h/a\u00a0b'],
  ];

  it.each(refused)('refuses %s: %j', (_name, input) => {
    const error = badRequest(() => validateEndpointUri(input));
    expect(error.detail).toContain('EndpointUri');
  });

  it.each(refused)('names the member passed for %s', (_name, input) => {
    const error = badRequest(() => validateEndpointUri(input, 'callback'));
    expect(error.detail).toContain('callback');
  });

  const specificDetails: ReadonlyArray<readonly [string, RegExp]> = [
    ['ftp://h/', /http or https/],
    ['mailto:ops@example.com', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['http:/x', /host/],
    ['http:///x', /host/],
    ['http://u:p@h/', /user info/],
    ['http://u@h/', /user info/],
    ['http://@h/', /user info/],
    ['http://h/#x', /fragment/],
    ['http://h/#', /fragment/],
    ['https://h/a b', /space|control/],
    ['https://h/a\u0000b', /space|control/],
  ];

  it.each(specificDetails)('says what is wrong with %j', (input, detail) => {
    expect(badRequest(() => validateEndpointUri(input)).detail).toMatch(detail);
  });

  // Control characters are Unicode category Cc: C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F).
  // The URL parser percent-encodes C1 characters silently, so the stored URI would not be the one used.
  const c1Controls: ReadonlyArray<readonly [string, string]> = [
    ['NEL (U+0085) in the path', 'https://h/a\u0085b'],
    ['U+009F in the path', 'https://h/a\u009fb'],
    ['U+0080 at the end', 'https://h/events\u0080'],
  ];

  it.each(c1Controls)('refuses a C1 control character: %s', (_name, input) => {
    const error = badRequest(() => validateEndpointUri(input));
    expect(error.detail).toContain('EndpointUri');
    expect(error.detail).toMatch(/space|control/);
  });

  it('refuses 2049 characters', () => {
    const error = badRequest(() => validateEndpointUri(uriOfLength(2049)));
    expect(error.detail).toContain('EndpointUri');
    expect(error.detail).toContain('2048');
  });

  it('refuses a very long URI', () => {
    badRequest(() => validateEndpointUri(uriOfLength(100_000)));
  });
});
