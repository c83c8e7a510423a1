import { describe, expect, it } from 'vitest';
import { normaliseResourceAddress } from '../../lib/domain/resource-address';
import { NotFoundError } from '../../lib/errors';
import { BASE_PATH as BASE } from '../../lib/http/base-path';
import { addressFromCurrentStatePath } from '../../lib/http/current-state-path';
import { badRequest, thrown } from '../support/errors';

const PTP_LOCK = '/east-edge-10/site-3/node-7/sync/ptp-status/lock-state';

describe('addressFromCurrentStatePath: addresses', () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['the contract example', `${BASE}${PTP_LOCK}/CurrentState`, PTP_LOCK],
    ['one segment', `${BASE}/a/CurrentState`, '/a'],
    ['two segments', `${BASE}/east-edge-10/site-3/CurrentState`, '/east-edge-10/site-3'],
    [
      'a sync prefix',
      `${BASE}/east-edge-10/site-3/node-7/sync/CurrentState`,
      '/east-edge-10/site-3/node-7/sync',
    ],
    ['all allowed characters', `${BASE}/Az09-._~:/CurrentState`, '/Az09-._~:'],
    [
      'an encoded hyphen',
      `${BASE}/east-edge-10/site-3/node%2D7/sync/CurrentState`,
      '/east-edge-10/site-3/node-7/sync',
    ],
    ['a lower-case encoded hyphen', `${BASE}/node%2d7/CurrentState`, '/node-7'],
    ['an encoded colon', `${BASE}/cluster/ns%3Aname/CurrentState`, '/cluster/ns:name'],
    ['a lower-case encoded colon', `${BASE}/ns%3aname/CurrentState`, '/ns:name'],
    ['an encoded tilde', `${BASE}/%7Euser/CurrentState`, '/~user'],
    ['an encoded letter', `${BASE}/%61bc/CurrentState`, '/abc'],
    ['a wholly encoded segment', `${BASE}/%6E%6F%64%65/CurrentState`, '/node'],
    [
      'encoded characters in every segment',
      `${BASE}/east%2Dedge%2D10/site%2D3/node%2D7/sync/ptp%2Dstatus/lock%2Dstate/CurrentState`,
      PTP_LOCK,
    ],
    ['a stage prefix before the base path', `/prod${BASE}${PTP_LOCK}/CurrentState`, PTP_LOCK],
    ['a segment named CurrentState', `${BASE}/CurrentState/CurrentState`, '/CurrentState'],
    // What a generated client sends for the path parameter, and what API Gateway's HTTP API makes of it.
    ['the address wholly encoded', `${BASE}/${encodeURIComponent(PTP_LOCK)}/CurrentState`, PTP_LOCK],
    [
      'the address wholly encoded, delivered decoded by API Gateway',
      `${BASE}/${PTP_LOCK}/CurrentState`,
      PTP_LOCK,
    ],
    [
      'the address encoded without its leading slash',
      `${BASE}/${encodeURIComponent(PTP_LOCK.slice(1))}/CurrentState`,
      PTP_LOCK,
    ],
    [
      'an encoded slash inside a segment',
      `${BASE}/east-edge-10/site-3%2Fnode-7/CurrentState`,
      '/east-edge-10/site-3/node-7',
    ],
    ['a lower-case encoded slash', `${BASE}/east-edge-10%2fsite-3/CurrentState`, '/east-edge-10/site-3'],
    ['an encoded slash at the start', `${BASE}/%2Fa/CurrentState`, '/a'],
  ];

  it.each(cases)('%s: %s → %s', (_name, rawPath, expected) => {
    expect(addressFromCurrentStatePath(rawPath)).toBe(expected);
  });

  it.each(cases)('the address from %s is already normalised', (_name, rawPath, expected) => {
    expect(normaliseResourceAddress(addressFromCurrentStatePath(rawPath))).toBe(expected);
  });

  it('leaves a trailing slash for the address check to remove', () => {
    const address = addressFromCurrentStatePath(`${BASE}${PTP_LOCK}//CurrentState`);
    expect(normaliseResourceAddress(address)).toBe(PTP_LOCK);
  });
});

describe('addressFromCurrentStatePath: 400 for a badly encoded address', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['malformed escape %zz', `${BASE}/east-edge-10/%zz/CurrentState`],
    ['a lone percent sign', `${BASE}/east-edge-10/50%/CurrentState`],
    ['a truncated escape', `${BASE}/a%2/CurrentState`],
    ['an escape with one hex digit', `${BASE}/a%A/CurrentState`],
    ['invalid UTF-8', `${BASE}/a%C0%AF/CurrentState`],
    ['a truncated UTF-8 sequence', `${BASE}/a%E2%82/CurrentState`],
    ['a lone continuation byte', `${BASE}/a%80/CurrentState`],
  ];

  it.each(cases)('%s: %s', (_name, rawPath) => {
    expect(badRequest(() => addressFromCurrentStatePath(rawPath)).detail).toContain('percent-encoded');
  });
});

describe('addressFromCurrentStatePath with the address check: 400 for a malformed address', () => {
  // The handler passes the decoded address to the address check (lib/domain/publishers.ts).
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['an empty segment', `${BASE}/a//b/CurrentState`],
    ['an encoded empty segment', `${BASE}/a%2F%2Fb/CurrentState`],
    ['two leading empty segments', `${BASE}///a/CurrentState`],
    ['an encoded address with a leading empty segment', `${BASE}/%2F%2Fa/CurrentState`],
    ['a segment that is only an encoded slash', `${BASE}/a/%2F/b/CurrentState`],
    ['an encoded dot-dot segment', `${BASE}/a/%2E%2E/b/CurrentState`],
    ['an encoded dot segment', `${BASE}/a/%2e/b/CurrentState`],
    ['a wildcard', `${BASE}/east-edge-10/*/CurrentState`],
    ['an encoded wildcard', `${BASE}/east-edge-10/%2A/CurrentState`],
    ['an encoded question mark', `${BASE}/east-edge-10/site%3F/CurrentState`],
    ['an encoded space', `${BASE}/east-edge-10/site%203/CurrentState`],
    ['an encoded percent sign', `${BASE}/east-edge-10/site%253/CurrentState`],
    ['an encoded non-ASCII letter', `${BASE}/caf%C3%A9/CurrentState`],
  ];

  it.each(cases)('%s: %s', (_name, rawPath) => {
    badRequest(() => normaliseResourceAddress(addressFromCurrentStatePath(rawPath)));
  });
});

describe('addressFromCurrentStatePath: 404 when the path is not a current-state path', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['just /CurrentState', `${BASE}/CurrentState`],
    ['the base path alone', BASE],
    ['the base path with a slash', `${BASE}/`],
    ['an address without /CurrentState', `${BASE}${PTP_LOCK}`],
    ['a trailing slash after CurrentState', `${BASE}${PTP_LOCK}/CurrentState/`],
    ['lower case currentstate', `${BASE}${PTP_LOCK}/currentstate`],
    ['upper case CURRENTSTATE', `${BASE}${PTP_LOCK}/CURRENTSTATE`],
    ['CurrentState glued to the last segment', `${BASE}${PTP_LOCK}CurrentState`],
    ['a longer last segment', `${BASE}${PTP_LOCK}/CurrentStates`],
    ['something after CurrentState', `${BASE}${PTP_LOCK}/CurrentState/x`],
    ['an encoded CurrentState', `${BASE}${PTP_LOCK}/%43urrentState`],
    ['an unknown route', `${BASE}/unknown`],
    ['the subscriptions route', `${BASE}/subscriptions`],
    ['a subscription id', `${BASE}/subscriptions/789be75d-7ac3-472e-bbbc-6d62878aad4a`],
    ['the health route', `${BASE}/health`],
  ];

  it.each(cases)('%s: %s', (_name, rawPath) => {
    const error = thrown(() => addressFromCurrentStatePath(rawPath), NotFoundError);
    expect(error.kind).toBe('not-found');
    expect(error.detail).toContain('CurrentState');
  });

  it('answers 404 before looking at the encoding of a path that is not a current-state path', () => {
    thrown(() => addressFromCurrentStatePath(`${BASE}/a%2Fb/%zz`), NotFoundError);
  });
});
