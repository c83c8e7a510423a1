import { describe, expect, it } from 'vitest';
import { normaliseResourceAddress, selfAndAncestors } from '../../lib/domain/resource-address';
import { badRequest } from '../support/errors';

const PTP_LOCK = '/east-edge-10/site-3/node-7/sync/ptp-status/lock-state';

/** A valid address of exactly `length` characters: one long first segment, then a realistic tail. */
function addressOfLength(length: number): string {
  const tail = '/site-3/node-7/sync/ptp-status/lock-state';
  const address = `/${'e'.repeat(length - tail.length - 1)}${tail}`;
  expect(address).toHaveLength(length);
  return address;
}

describe('normaliseResourceAddress: valid addresses', () => {
  const valid: ReadonlyArray<readonly [string, string, string]> = [
    ['one segment', '/a', '/a'],
    ['one longer segment', '/east-edge-10', '/east-edge-10'],
    ['two segments', '/east-edge-10/site-3', '/east-edge-10/site-3'],
    ['the contract example', PTP_LOCK, PTP_LOCK],
    ['many segments', '/a/b/c/d/e/f/g/h/i/j/k/l', '/a/b/c/d/e/f/g/h/i/j/k/l'],
    ['upper and lower case letters', '/ABC/xyz/MiXeD', '/ABC/xyz/MiXeD'],
    ['digits only', '/0/123/9876543210', '/0/123/9876543210'],
    ['hyphen', '/a-b/-/--', '/a-b/-/--'],
    ['dot inside a segment', '/a.b/v1.0/node.7', '/a.b/v1.0/node.7'],
    ['three dots is not a dot segment', '/a/.../b', '/a/.../b'],
    ['leading dot in a longer segment', '/a/.hidden/..x', '/a/.hidden/..x'],
    ['underscore', '/a_b/_/__x__', '/a_b/_/__x__'],
    ['tilde', '/~/a~b/~user', '/~/a~b/~user'],
    ['colon', '/a:b/:/ns:name:1', '/a:b/:/ns:name:1'],
    ['every allowed character in one segment', '/Az09-._~:', '/Az09-._~:'],
    ['single trailing slash removed (one segment)', '/a/', '/a'],
    ['single trailing slash removed (O-RAN example form)', `${PTP_LOCK}/`, PTP_LOCK],
    [
      'single trailing slash removed (sync prefix)',
      '/east-edge-10/site-3/node-7/sync/',
      '/east-edge-10/site-3/node-7/sync',
    ],
  ];

  it.each(valid)('%s: %s → %s', (_name, input, expected) => {
    expect(normaliseResourceAddress(input)).toBe(expected);
  });

  it.each(valid)('normalising is idempotent for %s', (_name, input) => {
    const once = normaliseResourceAddress(input);
    expect(normaliseResourceAddress(once)).toBe(once);
  });

  it('accepts a custom member name without changing the result', () => {
    expect(normaliseResourceAddress(`${PTP_LOCK}/`, 'source')).toBe(PTP_LOCK);
  });

  describe('length limit of 512 characters, applied after normalisation', () => {
    it('accepts exactly 512 characters', () => {
      const address = addressOfLength(512);
      expect(normaliseResourceAddress(address)).toBe(address);
    });

    it('accepts 512 characters plus a trailing slash (513 before normalisation)', () => {
      const address = addressOfLength(512);
      expect(normaliseResourceAddress(`${address}/`)).toBe(address);
    });

    it('refuses 513 characters', () => {
      const error = badRequest(() => normaliseResourceAddress(addressOfLength(513)));
      expect(error.detail).toContain('ResourceAddress');
      expect(error.detail).toContain('512');
    });

    it('refuses 513 characters plus a trailing slash', () => {
      const error = badRequest(() => normaliseResourceAddress(`${addressOfLength(513)}/`));
      expect(error.detail).toContain('ResourceAddress');
    });

    it('refuses a very long single segment', () => {
      const error = badRequest(() => normaliseResourceAddress(`/${'x'.repeat(1000)}`, 'source'));
      expect(error.detail).toContain('source');
    });

    it('keeps the detail short for a long invalid address', () => {
      const error = badRequest(() => normaliseResourceAddress(`/${'x'.repeat(300)}/*`));
      expect(error.detail.length).toBeLessThan(300);
    });
  });
});

describe('normaliseResourceAddress: invalid addresses', () => {
  const notStrings: ReadonlyArray<readonly [string, unknown]> = [
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a boolean', true],
    ['an object', { ResourceAddress: '/a' }],
    ['an array', ['/a']],
  ];

  it.each(notStrings)('refuses %s', (_name, input) => {
    const error = badRequest(() => normaliseResourceAddress(input));
    expect(error.detail).toContain('ResourceAddress');
  });

  it('refuses the empty string', () => {
    const error = badRequest(() => normaliseResourceAddress(''));
    expect(error.detail).toContain('ResourceAddress');
  });

  const malformed: ReadonlyArray<readonly [string, string]> = [
    ['missing leading slash', 'east-edge-10/site-3'],
    ['missing leading slash, one segment', 'a'],
    ['missing leading slash with trailing slash', 'a/'],
    ['only a slash', '/'],
    ['two slashes only', '//'],
    ['empty segment in the middle', '/a//b'],
    ['empty first segment', '//a'],
    ['two trailing slashes', '/a//'],
    ['three trailing slashes', '/a///'],
    ['dot segment', '/a/./b'],
    ['dot-dot segment', '/a/../b'],
    ['leading dot segment', '/./a'],
    ['leading dot-dot segment', '/../a'],
    ['trailing dot segment', '/a/.'],
    ['trailing dot-dot segment', '/a/..'],
    ['trailing dot segment with trailing slash', '/a/./'],
    ['regex alternation', '/(a|b)/c'],
    ['pipe', '/a|b'],
    ['parentheses', '/a/(b)'],
    ['plus', '/a+/b'],
    ['dollar', '/a/b$'],
    ['caret', '/^a/b'],
    ['braces', '/a{1,2}'],
    ['backslash', '/a\\b'],
    ['space', '/a b'],
    ['leading space', ' /a'],
    ['trailing space', '/a '],
    ['tab', '/a\tb'],
    ['newline', '/a\nb'],
    ['percent', '/a%2Fb'],
    ['percent alone', '/%'],
    ['hash', '/a#b'],
    ['at sign', '/a@b'],
    ['comma', '/a,b'],
    ['semicolon', '/a;b'],
    ['equals', '/a=b'],
    ['ampersand', '/a&b'],
    ['quote', '/a"b'],
    ['non-ASCII letter', '/café'],
    ['non-ASCII digit', '/node-٣'],
    ['emoji', '/node-🙂'],
    ['full-width slash', '/a／b'],
    ['NUL character', '/a\u0000b'],
  ];

  it.each(malformed)('refuses %s: %j', (_name, input) => {
    const error = badRequest(() => normaliseResourceAddress(input));
    expect(error.detail).toContain('ResourceAddress');
  });

  it.each(malformed)('names the member passed for %s', (_name, input) => {
    const error = badRequest(() => normaliseResourceAddress(input, 'data.values[0].ResourceAddress'));
    expect(error.detail).toContain('data.values[0].ResourceAddress');
  });

  const wildcards: ReadonlyArray<readonly [string, string]> = [
    ['star segment', '/east-edge-10/*/node-7'],
    ['star inside a segment', '/east-edge-10/site-*'],
    ['trailing star', '/east-edge-10/site-3/*'],
    ['trailing star with slash', '/east-edge-10/site-3/*/'],
    ['double star', '/**'],
    ['question mark', '/east-edge-10/site-?'],
    ['character class', '/east-edge-10/site-[0-9]'],
    ['opening bracket', '/a[b'],
    ['closing bracket', '/a]b'],
    ['regex with star', '/a/.*'],
    ['wildcard without leading slash', '*'],
  ];

  it.each(wildcards)('refuses a wildcard (%s) and says so: %j', (_name, input) => {
    const error = badRequest(() => normaliseResourceAddress(input));
    expect(error.detail).toContain('ResourceAddress');
    expect(error.detail.toLowerCase()).toContain('wildcard');
  });

  it.each(wildcards)('names the member passed for a wildcard (%s)', (_name, input) => {
    const error = badRequest(() => normaliseResourceAddress(input, 'source'));
    expect(error.detail).toContain('source');
    expect(error.detail.toLowerCase()).toContain('wildcard');
  });

  it('names the member passed for a non-string', () => {
    const error = badRequest(() => normaliseResourceAddress(undefined, 'source'));
    expect(error.detail).toContain('source');
  });
});

describe('selfAndAncestors', () => {
  const cases: ReadonlyArray<readonly [string, string[]]> = [
    ['/a', ['/a']],
    ['/a/b', ['/a', '/a/b']],
    ['/a/b/c', ['/a', '/a/b', '/a/b/c']],
    [
      PTP_LOCK,
      [
        '/east-edge-10',
        '/east-edge-10/site-3',
        '/east-edge-10/site-3/node-7',
        '/east-edge-10/site-3/node-7/sync',
        '/east-edge-10/site-3/node-7/sync/ptp-status',
        PTP_LOCK,
      ],
    ],
    ['/a.b/c:d/e~f', ['/a.b', '/a.b/c:d', '/a.b/c:d/e~f']],
  ];

  it.each(cases)('%s → %j', (address, expected) => {
    expect(selfAndAncestors(address)).toEqual(expected);
  });
});
