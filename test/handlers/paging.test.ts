import { describe, expect, it } from 'vitest';
import { subscriptionIdFor } from '../../lib/domain/ids';
import { DEFAULT_PAGE } from '../../lib/http/paging';
import { subscriptionStore } from '../../lib/services';
import {
  type ApiResponse,
  api,
  expectJson,
  expectNoContent,
  expectProblem,
  freshNode,
  PUBLIC_BASE,
  registerPublisher,
  type SubscriptionInfo,
} from './api';

/** The `rel="next"` target of a response's Link header, relative to the API base, or undefined. */
function nextOf(response: ApiResponse): string | undefined {
  const link = response.headers.link;
  if (link === undefined) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  const target = match?.[1] ?? '';
  expect(target.startsWith(PUBLIC_BASE), target).toBe(true);
  return target.slice(PUBLIC_BASE.length);
}

/** Follows every Link from `first`, returning each page's body. */
async function allPages(
  list: (query: string) => Promise<ApiResponse>,
  first: string,
): Promise<SubscriptionInfo[][]> {
  const pages: SubscriptionInfo[][] = [];
  let query: string | undefined = first;
  while (query !== undefined) {
    const response = await list(query);
    pages.push(expectJson<SubscriptionInfo[]>(response, 200));
    const next = nextOf(response);
    query = next?.slice(next.indexOf('?'));
  }
  return pages;
}

const subscriptionsQuery = (query: string) => api.listSubscriptions(query);
const publishersQuery = (query: string) => api.listPublishers(query);

/** Subscriptions of the anonymous principal straight into the store (the handler's sanity check is not under test here). */
async function seedSubscriptions(address: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const endpointUri = `http://127.0.0.1:9/seed/${i}`;
    await subscriptionStore().createSubscription({
      id: subscriptionIdFor('anonymous', address, endpointUri),
      resourceAddress: address,
      endpointUri,
      owner: 'anonymous',
      createdAt: new Date().toISOString(),
    });
  }
}

describe('paging GET /subscriptions', () => {
  it('pages with ?limit= and Link rel="next" until the end; the pages together are the whole list', async () => {
    expectNoContent(await api.deleteAllSubscriptions());
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, 5);
    const whole = expectJson<SubscriptionInfo[]>(await api.listSubscriptions(), 200);

    const pages = await allPages(subscriptionsQuery, '?limit=2');

    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(whole);
    expect(whole).toHaveLength(5);
  });

  it('a list that fits one page has no Link, with or without limit (exactly limit items included)', async () => {
    expectNoContent(await api.deleteAllSubscriptions());
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, 3);

    const plain = await api.listSubscriptions();
    const exact = await api.listSubscriptions('?limit=3');

    expect(plain.headers.link).toBeUndefined();
    expect(exact.headers.link).toBeUndefined();
    expect(expectJson(exact, 200)).toEqual(expectJson(plain, 200));
  });

  it(`without limit, a longer list answers its first ${DEFAULT_PAGE} and a Link to the rest`, async () => {
    expectNoContent(await api.deleteAllSubscriptions());
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, DEFAULT_PAGE + 2);

    const first = await api.listSubscriptions();

    expect(expectJson<SubscriptionInfo[]>(first, 200)).toHaveLength(DEFAULT_PAGE);
    const next = nextOf(first) ?? '';
    expect(next).toMatch(new RegExp(`^/subscriptions\\?limit=${DEFAULT_PAGE}&cursor=`));
    const rest = expectJson<SubscriptionInfo[]>(
      await api.listSubscriptions(next.slice(next.indexOf('?'))),
      200,
    );
    expect(rest).toHaveLength(2);
  }, 60_000);

  it('pages a ResourceAddress filter, and the Link keeps the filter', async () => {
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, 3);
    const filter = `?ResourceAddress=${encodeURIComponent(`${node}/sync`)}`;

    const first = await api.listSubscriptions(`${filter}&limit=2`);
    expect(nextOf(first)).toContain(`ResourceAddress=${encodeURIComponent(`${node}/sync`)}`);
    const pages = await allPages(subscriptionsQuery, `${filter}&limit=2`);

    expect(pages.map((page) => page.length)).toEqual([2, 1]);
    expect(new Set(pages.flat().map((s) => s.ResourceAddress))).toEqual(new Set([`${node}/sync`]));
  });

  it.each([
    ['0', '0'],
    ['1001', '1001'],
    ['-1', '-1'],
    ['1.5', '1.5'],
    ['abc', 'abc'],
    ['empty', ''],
  ])('?limit=%s → 400 naming limit', async (_, value) => {
    expectProblem(
      await api.listSubscriptions(`?limit=${value}`),
      400,
      /limit must be an integer from 1 to 1000/,
    );
  });

  it('a forged, altered or truncated cursor → 400 naming cursor, never 500', async () => {
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, 3);
    const next = nextOf(await api.listSubscriptions('?limit=1')) ?? '';
    const cursor = new URLSearchParams(next.slice(next.indexOf('?'))).get('cursor') ?? '';
    const [payload = '', mac = ''] = cursor.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...decoded, f: '/other' })).toString('base64url');

    for (const forged of [
      `${altered}.${mac}`,
      payload,
      `${payload}.`,
      `${payload}.${mac.slice(1)}`,
      'not-a-cursor',
      `${Buffer.from('{}').toString('base64url')}.${mac}`,
    ]) {
      expectProblem(
        await api.listSubscriptions(`?limit=1&cursor=${encodeURIComponent(forged)}`),
        400,
        /cursor/,
      );
    }
  });

  it('a cursor of another filter, or of the other list, → 400 naming cursor', async () => {
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, 3);
    const next = nextOf(await api.listSubscriptions('?limit=1')) ?? '';
    const cursor = new URLSearchParams(next.slice(next.indexOf('?'))).get('cursor') ?? '';

    const withFilter = `?ResourceAddress=${encodeURIComponent(`${node}/sync`)}&limit=1&cursor=${cursor}`;
    expectProblem(await api.listSubscriptions(withFilter), 400, /cursor is not valid for this list/);
    expectProblem(await api.listPublishers(`?limit=1&cursor=${cursor}`), 400, /cursor is not valid/);
  });

  it('a cursor from before DELETE /subscriptions → 400: that list is gone', async () => {
    const node = freshNode();
    await registerPublisher(`${node}/sync`);
    await seedSubscriptions(`${node}/sync`, 3);
    const next = nextOf(await api.listSubscriptions('?limit=1')) ?? '';

    expectNoContent(await api.deleteAllSubscriptions());

    expectProblem(
      await api.listSubscriptions(next.slice(next.indexOf('?'))),
      400,
      /DELETE \/subscriptions has emptied/,
    );
  });
});

describe('GET /publishers: paging and ?ResourceAddress=', () => {
  it('lists the publishers at or under the address only (inclusive), with one page per Link', async () => {
    const node = freshNode();
    const sibling = node.replace(/node-1$/, 'node-2');
    const mine = [
      `${node}/sync/ptp-status/lock-state`,
      `${node}/sync/sync-status/sync-state`,
      `${node}/sync/gnss`,
    ];
    for (const address of [...mine, `${sibling}/sync/ptp-status/lock-state`, `${node}x/sync`]) {
      await registerPublisher(address);
    }

    const pages = await allPages(publishersQuery, `?ResourceAddress=${encodeURIComponent(node)}&limit=2`);

    expect(pages.map((page) => page.length)).toEqual([2, 1]);
    expect(
      pages
        .flat()
        .map((p) => p.ResourceAddress)
        .sort(),
    ).toEqual([...mine].sort());
    for (const record of pages.flat()) {
      expect(record.UriLocation).toBe(`${PUBLIC_BASE}/publishers/${record.SubscriptionId}`);
    }
  });

  it('an exact publisher address lists that publisher, with the record GET /publishers/{id} has', async () => {
    const node = freshNode();
    const address = `${node}/sync/ptp-status/lock-state`;
    const id = await registerPublisher(address, 'http://agent.example.com/node-1');

    const found = expectJson(
      await api.listPublishers(`?ResourceAddress=${encodeURIComponent(`${address}/`)}`),
      200,
    );

    expect(found).toEqual([expectJson(await api.getPublisher(id), 200)]);
  });

  it('404 when no publisher is at or under the address; 400 for a malformed one', async () => {
    const node = freshNode();
    await registerPublisher(`${node}/sync`);

    expectProblem(
      await api.listPublishers(`?ResourceAddress=${encodeURIComponent(`${node}/ptp`)}`),
      404,
      /No publisher is registered at or under ResourceAddress/,
    );
    expectProblem(await api.listPublishers('?ResourceAddress=/a/*'), 400, /ResourceAddress/);
  });

  it('pages the unfiltered list too; without limit a short list is the plain array', async () => {
    const node = freshNode();
    for (const n of [1, 2, 3]) await registerPublisher(`${node}/sync/p${n}`);
    const plain = await api.listPublishers();
    const whole = expectJson<SubscriptionInfo[]>(plain, 200);

    const pages = await allPages(publishersQuery, '?limit=2');

    expect(pages.flat()).toEqual(whole);
    expect(plain.headers.link).toBeUndefined();
  });
});
