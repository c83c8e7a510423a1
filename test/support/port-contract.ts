/**
 * The domain's store ports as a contract both hosts keep: the same expectations run against the
 * DynamoDB adapters (lib/store, test/store/port-contract.test.ts) and the node's disk adapters
 * (agent/serve/disk, test/node-disk/port-contract.test.ts), so that the API answers alike in the
 * region and on the node. Tests share one store where the host has one (DynamoDB's table per test
 * file): each uses addresses and owners of its own, and counts by difference.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type NotificationEvent, possiblePublisherAddresses, validateEvent } from '../../lib/domain/event';
import { publisherIdFor, subscriptionIdFor } from '../../lib/domain/ids';
import type {
  DeadLetterRecord,
  DeliveryAttempt,
  EventToAccept,
  Publisher,
  Subscription,
} from '../../lib/domain/model';
import type {
  CounterStore,
  DeadLetterStore,
  DeliveryCursorStore,
  EndpointBreakerStore,
  PublisherStore,
  StoreHealth,
  SubscriptionStore,
} from '../../lib/domain/ports';
import { newSigningSecret } from '../../lib/domain/signing-secret';
import type { WebhookKeyStore } from '../../lib/domain/webhook-keys';
import { localDataKey } from '../../lib/secrets/local-data-key';
import { AesGcmSecretBox } from '../../lib/secrets/secret-box';
import { lockStateEvent, uniqueCluster } from './fixtures';
import { leaseRuleCases } from './lease-rule';

export interface PortStores {
  /** Built with the secret box: it seals and opens signing secrets. */
  readonly subscriptions: SubscriptionStore;
  /** The same data read without the box: no `signing`. */
  readonly plainSubscriptions: SubscriptionStore;
  readonly publishers: PublisherStore;
  readonly cursors: DeliveryCursorStore;
  readonly deadLetters: DeadLetterStore;
  readonly counters: CounterStore;
  readonly breaker: EndpointBreakerStore;
  readonly health: StoreHealth;
  readonly webhookKeys: WebhookKeyStore;
  /** Everything the store holds at rest, as text: where a plaintext secret must never be found. */
  storedText(): Promise<string>;
}

/** A box on a data key of its own, as the hosts build theirs. */
export function testSecretBox(): AesGcmSecretBox {
  return new AesGcmSecretBox(
    localDataKey(join(mkdtempSync(join(tmpdir(), 'port-contract-')), 'signing-key')),
  );
}

const SOURCE = '/sync/ptp-status/lock-state';
const T1 = '2026-01-01T00:00:01Z';
const T2 = '2026-01-01T00:00:02Z';
const T3 = '2026-01-01T00:00:03Z';

function publisherAt(resourceAddress: string, createdAt = new Date().toISOString()): Publisher {
  return { id: publisherIdFor(resourceAddress), resourceAddress, endpointUri: undefined, createdAt };
}

/** A node of its own, and the lock-state address on it. */
function freshNode() {
  const node = `/${uniqueCluster()}/site/node`;
  return { node, address: `${node}${SOURCE}` };
}

/** The event as the domain hands it to the store (validated, in its wire form). */
function toAccept(
  publisherId: string,
  node: string,
  options: { id?: string; time?: string } = {},
): EventToAccept {
  const { event, timeKey } = validateEvent(lockStateEvent({ node, ...options }));
  return {
    publisherId,
    event,
    timeKey,
    acceptedAt: new Date().toISOString(),
    publisherAddresses: possiblePublisherAddresses(event.data.values, event.source),
  };
}

function subscriptionTo(
  resourceAddress: string,
  owner: string,
  createdAt = new Date().toISOString(),
): Subscription {
  const endpointUri = `https://consumer.example/${randomUUID()}`;
  return {
    id: subscriptionIdFor(owner, resourceAddress, endpointUri),
    resourceAddress,
    endpointUri,
    owner,
    createdAt,
  };
}

function attemptOf(
  subscriptionId: string,
  resourceAddress: string,
  event: Pick<NotificationEvent, 'source' | 'id' | 'time'>,
  leaseMs = 7000,
): DeliveryAttempt {
  const now = Date.now();
  return {
    subscriptionId,
    resourceAddress,
    timeKey: validateEvent(lockStateEvent({ node: '/c/n', time: event.time })).timeKey,
    eventKey: `${event.source}#${event.id}`,
    leaseOwner: randomUUID(),
    now,
    leaseUntil: now + leaseMs,
    expiresAt: Math.floor(now / 1000) + 3600,
    delivered: { source: event.source, id: event.id, time: event.time, deliveredAt: now },
  };
}

function delivered(a: DeliveryAttempt, event: Pick<NotificationEvent, 'source' | 'id' | 'time'>) {
  return {
    ...a,
    delivered: { source: event.source, id: event.id, time: event.time, deliveredAt: Date.now() },
  };
}

function outcomes<T>(settled: PromiseSettledResult<T>[]): T[] {
  return settled.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}

/** Every page of a paged read, followed to its end. */
async function allPages<T>(
  read: (
    after: Readonly<Record<string, unknown>> | undefined,
  ) => Promise<{ items: readonly T[]; next?: unknown }>,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let after: Readonly<Record<string, unknown>> | undefined;
  let pages = 0;
  do {
    const page = await read(after);
    items.push(...page.items);
    after = page.next as Readonly<Record<string, unknown>> | undefined;
    pages++;
  } while (after);
  return { items, pages };
}

export function portContract(name: string, makeStores: () => PortStores | Promise<PortStores>): void {
  describe(`the store ports: ${name}`, () => {
    let stores: PortStores;
    beforeEach(async () => {
      stores = await makeStores();
    });

    describe("an endpoint's breaker", () => {
      it('notes when failures began once, suspends once, keeps the failure while suspended, and resumes', async () => {
        const { node } = freshNode();
        const owner = `owner-${randomUUID().slice(0, 8)}`;
        const s = subscriptionTo(node, owner);
        expect(await stores.plainSubscriptions.createSubscription(s)).toBe(true);
        const read = () => stores.plainSubscriptions.getSubscription(s.id, owner);
        await stores.breaker.recordEndpointFailure(s.id, 1000);
        await stores.breaker.recordEndpointFailure(s.id, 2000);
        expect((await read())?.endpointFailingSince).toBe(1000);
        await stores.breaker.clearEndpointFailure(s.id);
        expect((await read())?.endpointFailingSince).toBeUndefined();
        await stores.breaker.recordEndpointFailure(s.id, 3000);
        expect(await stores.breaker.suspendEndpoint(s.id, 4000)).toBe(true);
        expect(await stores.breaker.suspendEndpoint(s.id, 5000)).toBe(false);
        await stores.breaker.clearEndpointFailure(s.id);
        expect(await read()).toMatchObject({ endpointFailingSince: 3000, endpointSuspendedAt: 4000 });
        await stores.breaker.resumeEndpoint(s.id);
        const resumed = await read();
        expect(resumed?.endpointFailingSince).toBeUndefined();
        expect(resumed?.endpointSuspendedAt).toBeUndefined();
      });
    });

    describe('publishers', () => {
      it('are created once, read, and deleted once with their state', async () => {
        const { address } = freshNode();
        const p = publisherAt(address);
        expect(await stores.publishers.createPublisher(p)).toBe('created');
        expect(await stores.publishers.createPublisher(p)).toBe('exists');
        expect(await stores.publishers.getPublisher(p.id)).toEqual(p);
        expect(await stores.publishers.getState(p.id)).toEqual({
          publisherId: p.id,
          resourceAddress: address,
          event: undefined,
          timeKey: undefined,
          acceptedAt: undefined,
        });
        expect(await stores.publishers.deletePublisher(p.id, 'anyone', false)).toBe('deleted');
        expect(await stores.publishers.deletePublisher(p.id, 'anyone', false)).toBe('absent');
        expect(await stores.publishers.getPublisher(p.id)).toBeUndefined();
        expect(await stores.publishers.getState(p.id)).toBeUndefined();
      });

      it("belong to the principal that registered them: another's delete is refused, counted ones stop at the quota", async () => {
        const { address } = freshNode();
        const owner = `producer-${randomUUID().slice(0, 8)}`;
        const mine = { ...publisherAt(address), owner };
        expect(await stores.publishers.createPublisher(mine, 2)).toBe('created');
        expect(await stores.publishers.getPublisher(mine.id)).toEqual(mine);
        const second = { ...publisherAt(`${address}-2`), owner };
        expect(await stores.publishers.createPublisher(second, 2)).toBe('created');
        expect(await stores.publishers.createPublisher({ ...publisherAt(`${address}-3`), owner }, 2)).toBe(
          'over-quota',
        );
        expect(await stores.publishers.deletePublisher(mine.id, 'someone-else', true)).toBe('not-owner');
        expect(await stores.publishers.deletePublisher(mine.id, owner, true)).toBe('deleted');
        expect(await stores.publishers.createPublisher({ ...publisherAt(`${address}-3`), owner }, 2)).toBe(
          'created',
        );
      });

      it('list oldest first, page by page, and those at or under an address in whole segments', async () => {
        const cluster = `/${uniqueCluster()}`;
        const at = (path: string, second: number) =>
          publisherAt(`${cluster}${path}`, `2026-01-01T00:00:0${second}.000Z`);
        const made = [at('/b/sync', 3), at('/b-c/sync', 1), at('/b/x/sync', 2), at('/d/sync', 4)];
        for (const p of made) expect(await stores.publishers.createPublisher(p)).toBe('created');

        const all = await allPages((after) =>
          stores.publishers.listPublishers(undefined, { limit: 2, after }),
        );
        const mine = all.items.filter((p) => p.resourceAddress.startsWith(cluster));
        expect(mine.map((p) => p.createdAt)).toEqual([1, 2, 3, 4].map((s) => `2026-01-01T00:00:0${s}.000Z`));
        expect(new Set(all.items.map((p) => p.id)).size).toBe(all.items.length);

        const under = await allPages((after) =>
          stores.publishers.listPublishers(`${cluster}/b`, { limit: 1, after }),
        );
        expect(under.items.map((p) => p.resourceAddress)).toEqual([
          `${cluster}/b/sync`,
          `${cluster}/b/x/sync`,
        ]);
        expect(under.pages).toBe(2);
        const cluster1 = await stores.publishers.listPublishers(cluster, { limit: 10 });
        // The order of the region's publisher tree: by address and a `/`.
        expect(cluster1.items.map((p) => p.resourceAddress.slice(cluster.length))).toEqual([
          '/b-c/sync',
          '/b/sync',
          '/b/x/sync',
          '/d/sync',
        ]);
        expect(cluster1.next).toBeUndefined();
      });
    });

    describe('accepting events', () => {
      async function publisher() {
        const { node, address } = freshNode();
        const p = publisherAt(address);
        await stores.publishers.createPublisher(p);
        return { node, address, p };
      }

      it('accepts a new event as the current state, and refuses its repeat as a duplicate', async () => {
        const { node, address, p } = await publisher();
        const e = toAccept(p.id, node, { time: T2 });
        expect(await stores.publishers.acceptEvent(e)).toEqual({ kind: 'accepted' });
        expect(await stores.publishers.getState(p.id)).toEqual({
          publisherId: p.id,
          resourceAddress: address,
          event: e.event,
          timeKey: e.timeKey,
          acceptedAt: e.acceptedAt,
        });
        expect(await stores.publishers.acceptEvent(e)).toEqual({ kind: 'duplicate' });
      });

      it("refuses another principal's event through an owned publisher; the owner's goes through", async () => {
        const { node, address } = freshNode();
        const p = { ...publisherAt(address), owner: 'producer-a' };
        await stores.publishers.createPublisher(p, 10);
        expect(
          await stores.publishers.acceptEvent({ ...toAccept(p.id, node), producer: 'producer-b' }),
        ).toEqual({
          kind: 'not-owner',
          publisherAddress: address,
        });
        expect(
          (await stores.publishers.acceptEvent({ ...toAccept(p.id, node), producer: 'producer-a' })).kind,
        ).toBe('accepted');
      });

      it('holds a publisher to its rate: a burst goes through, the next is over it with how long to wait', async () => {
        const { node, address, p } = await publisher();
        const rate = { intervalMs: 1000, burst: 2 };
        const at = (id: string) => ({ ...toAccept(p.id, node, { id }), rate });
        expect((await stores.publishers.acceptEvent(at('r1'))).kind).toBe('accepted');
        expect((await stores.publishers.acceptEvent(at('r2'))).kind).toBe('accepted');
        const over = await stores.publishers.acceptEvent(at('r3'));
        expect(over).toMatchObject({ kind: 'over-rate', publisherAddress: address });
        expect(over.kind === 'over-rate' && over.retryAfterMs).toBeGreaterThan(0);
        // A repeat of the current event is still a duplicate, not counted against the rate.
        expect(await stores.publishers.acceptEvent(at('r2'))).toEqual({ kind: 'duplicate' });
      });

      it('refuses an older event as stale, takes one of the same time, and a newer one', async () => {
        const { node, p } = await publisher();
        expect((await stores.publishers.acceptEvent(toAccept(p.id, node, { time: T2 }))).kind).toBe(
          'accepted',
        );
        expect(await stores.publishers.acceptEvent(toAccept(p.id, node, { time: T1 }))).toEqual({
          kind: 'stale',
        });
        expect((await stores.publishers.acceptEvent(toAccept(p.id, node, { time: T2 }))).kind).toBe(
          'accepted',
        );
        const newer = toAccept(p.id, node, { time: T3 });
        expect((await stores.publishers.acceptEvent(newer)).kind).toBe('accepted');
        expect((await stores.publishers.getState(p.id))?.timeKey).toBe(newer.timeKey);
        // Stale leaves nothing behind: not remembered as accepted, the state unchanged.
        const old = toAccept(p.id, node, { time: T1 });
        await stores.publishers.acceptEvent(old);
        expect((await stores.publishers.getState(p.id))?.timeKey).toBe(newer.timeKey);
      });

      it('only the current event is remembered: a repeat of an older one is stale, of one of its time taken', async () => {
        const { node, p } = await publisher();
        const first = toAccept(p.id, node, { time: T1 });
        const second = toAccept(p.id, node, { time: T2 });
        expect((await stores.publishers.acceptEvent(first)).kind).toBe('accepted');
        expect((await stores.publishers.acceptEvent(second)).kind).toBe('accepted');
        expect(await stores.publishers.acceptEvent(first)).toEqual({ kind: 'stale' });
        expect(await stores.publishers.acceptEvent(second)).toEqual({ kind: 'duplicate' });
        // The same (source, id) again with a newer time is still the current event: a duplicate.
        const later = { ...second, timeKey: toAccept(p.id, node, { time: T3 }).timeKey };
        expect(await stores.publishers.acceptEvent(later)).toEqual({ kind: 'duplicate' });
        const third = toAccept(p.id, node, { time: T2 });
        expect((await stores.publishers.acceptEvent(third)).kind).toBe('accepted');
        expect((await stores.publishers.acceptEvent(second)).kind).toBe('accepted');
        expect((await stores.publishers.getState(p.id))?.event).toEqual(second.event);
      });

      it('forgets an accepted event, so that its repeat is accepted again, and then knows it again', async () => {
        const { node, p } = await publisher();
        const e = toAccept(p.id, node);
        await stores.publishers.acceptEvent(e);
        await stores.publishers.forgetAcceptedEvent(p.id, e.event.source, e.event.id);
        expect(await stores.publishers.acceptEvent(e)).toEqual({ kind: 'accepted' });
        expect(await stores.publishers.acceptEvent(e)).toEqual({ kind: 'duplicate' });
      });

      it('forgets only the current event: a newer one accepted meanwhile is still known', async () => {
        const { node, p } = await publisher();
        const undone = toAccept(p.id, node, { time: T1 });
        const newer = toAccept(p.id, node, { time: T2 });
        await stores.publishers.acceptEvent(undone);
        await stores.publishers.acceptEvent(newer);
        await stores.publishers.forgetAcceptedEvent(p.id, undone.event.source, undone.event.id);
        expect(await stores.publishers.acceptEvent(newer)).toEqual({ kind: 'duplicate' });
        expect(await stores.publishers.acceptEvent(undone)).toEqual({ kind: 'stale' });
      });

      it('forgetting an event of a publisher that is gone makes nothing', async () => {
        const { node, p } = await publisher();
        const e = toAccept(p.id, node);
        await stores.publishers.acceptEvent(e);
        await stores.publishers.deletePublisher(p.id, 'anyone', false);
        await stores.publishers.forgetAcceptedEvent(p.id, e.event.source, e.event.id);
        expect(await stores.publishers.getState(p.id)).toBeUndefined();
        expect(await stores.publishers.acceptEvent(e)).toEqual({ kind: 'unknown-publisher' });
      });

      it('an unknown publisher, even for a repeat of an event its deleted namesake accepted', async () => {
        const { node, p } = await publisher();
        const e = toAccept(p.id, node);
        await stores.publishers.acceptEvent(e);
        await stores.publishers.deletePublisher(p.id, 'anyone', false);
        expect(await stores.publishers.acceptEvent(e)).toEqual({ kind: 'unknown-publisher' });
        expect(await stores.publishers.acceptEvent(toAccept(randomUUID(), node))).toEqual({
          kind: 'unknown-publisher',
        });
      });

      it('a source that is not a whole-segment suffix of the address is the wrong source', async () => {
        const { node, address, p } = await publisher();
        const e = toAccept(p.id, node);
        for (const source of ['/lock-state', '/ptp-status/lock-state', SOURCE]) {
          const outcome = await stores.publishers.acceptEvent({
            ...e,
            event: { ...e.event, source, id: randomUUID() },
          });
          expect(outcome).toEqual({ kind: 'accepted' });
        }
        for (const source of ['/state', '/sync/ptp-status', '/other']) {
          const outcome = await stores.publishers.acceptEvent({
            ...e,
            event: { ...e.event, source, id: randomUUID() },
          });
          expect(outcome).toEqual({ kind: 'wrong-source', publisherAddress: address });
        }
      });

      it('values outside the publisher, even in a repeat', async () => {
        const { node, address, p } = await publisher();
        const e = toAccept(p.id, node);
        const outside = { ...e, publisherAddresses: [`/elsewhere${SOURCE}`] };
        expect(await stores.publishers.acceptEvent(outside)).toEqual({
          kind: 'value-outside',
          publisherAddress: address,
        });
        await stores.publishers.acceptEvent(e);
        expect(await stores.publishers.acceptEvent(outside)).toEqual({
          kind: 'value-outside',
          publisherAddress: address,
        });
      });
    });

    describe('the states a subscription covers', () => {
      it('the publisher at exactly the address, else every one at or under it in whole segments', async () => {
        const { node, address } = freshNode();
        const exact = publisherAt(address);
        const below = publisherAt(`${node}/sync/gnss-status/gnss-sync-status`);
        const beside = publisherAt(`${node}-2/sync/ptp-status/lock-state`);
        for (const p of [exact, below, beside]) await stores.publishers.createPublisher(p);
        await stores.publishers.acceptEvent(toAccept(exact.id, node));

        const atExact = await stores.subscriptions.coveredStates(address, exact.id);
        expect(atExact.map((s) => s.publisherId)).toEqual([exact.id]);
        expect(atExact[0]?.event).toBeDefined();
        const atNode = await stores.subscriptions.coveredStates(node, publisherIdFor(node));
        expect(atNode.map((s) => s.publisherId).sort()).toEqual([exact.id, below.id].sort());
        expect(
          await stores.subscriptions.coveredStates(`${node}/none`, publisherIdFor(`${node}/none`)),
        ).toEqual([]);

        const owner = `owner-${randomUUID()}`;
        const check = (resourceAddress: string, subscriptionId: string = randomUUID()) =>
          stores.subscriptions.subscribeCheck({
            subscriptionId,
            owner,
            resourceAddress,
            publisherId: publisherIdFor(resourceAddress),
          });
        const first = await check(node);
        expect(first.exists).toBe(false);
        expect(first.states.map((s) => s.publisherId).sort()).toEqual([exact.id, below.id].sort());
        expect((await check(`${node}/none`)).states).toEqual([]);

        const s = subscriptionTo(node, owner);
        await stores.subscriptions.createSubscription(s, undefined, first.generation);
        const again = await check(node, s.id);
        // As the region reads it: an existing subscription's check looks no further than the exact address.
        expect(again).toEqual({
          exists: true,
          states: [],
          generation: first.generation,
          ownerCount: first.ownerCount + 1,
        });
      });
    });

    describe('subscriptions', () => {
      it('are created once, read by their owner only, with their secret opened by a signing store', async () => {
        const { address } = freshNode();
        const owner = `owner-${randomUUID()}`;
        const secret = newSigningSecret();
        const s = subscriptionTo(address, owner);
        expect(await stores.subscriptions.createSubscription({ ...s, signing: { current: secret } })).toBe(
          true,
        );
        expect(await stores.subscriptions.createSubscription({ ...s, signing: { current: secret } })).toBe(
          false,
        );
        expect(await stores.subscriptions.getSubscription(s.id, owner)).toEqual({
          ...s,
          signing: { current: secret },
        });
        expect(await stores.plainSubscriptions.getSubscription(s.id, owner)).toEqual(s);
        expect(await stores.subscriptions.getSubscription(s.id, 'someone else')).toBeUndefined();
        const read = await stores.subscriptions.getSubscriptions([s.id, s.id, randomUUID()]);
        expect([...read.values()]).toEqual([{ ...s, signing: { current: secret } }]);
        expect(await storedContains(secret)).toBe(false);
      });

      it('rotate the secret: the new one current, the old one previous until a time; owner only', async () => {
        const { address } = freshNode();
        const owner = `owner-${randomUUID()}`;
        const [first, second] = [newSigningSecret(), newSigningSecret()];
        const s = subscriptionTo(address, owner);
        await stores.subscriptions.createSubscription({ ...s, signing: { current: first } });
        const until = Date.now() + 60_000;
        expect(await stores.subscriptions.rotateSigningSecret(s.id, 'someone else', second, until)).toBe(
          false,
        );
        expect(await stores.subscriptions.rotateSigningSecret(randomUUID(), owner, second, until)).toBe(
          false,
        );
        expect(await stores.subscriptions.rotateSigningSecret(s.id, owner, second, until)).toBe(true);
        const read = await stores.subscriptions.getSubscription(s.id, owner);
        expect(read?.signing).toEqual({ current: second, previous: first, previousUntil: until });
        expect(await stores.plainSubscriptions.getSubscription(s.id, owner)).toEqual(s);
        expect(await storedContains(first)).toBe(false);
        expect(await storedContains(second)).toBe(false);
      });

      it('a subscription without a secret rotates to one with no previous', async () => {
        const { address } = freshNode();
        const owner = `owner-${randomUUID()}`;
        const s = subscriptionTo(address, owner);
        await stores.subscriptions.createSubscription(s);
        expect(await stores.subscriptions.getSubscription(s.id, owner)).toEqual(s);
        const secret = newSigningSecret();
        expect(await stores.subscriptions.rotateSigningSecret(s.id, owner, secret, Date.now())).toBe(true);
        expect((await stores.subscriptions.getSubscription(s.id, owner))?.signing).toEqual({
          current: secret,
        });
      });

      it('are deleted by their owner only, once, with their dead letters; then made again', async () => {
        const { address } = freshNode();
        const owner = `owner-${randomUUID()}`;
        const s = subscriptionTo(address, owner);
        await stores.subscriptions.createSubscription(s);
        await stores.deadLetters.recordDeadLetter(deadLetterOf(s, T1));
        expect(await stores.subscriptions.deleteSubscription(s.id, 'someone else')).toBe(false);
        expect(await stores.subscriptions.deleteSubscription(s.id, owner)).toBe(true);
        expect(await stores.subscriptions.deleteSubscription(s.id, owner)).toBe(false);
        expect(await stores.subscriptions.getSubscription(s.id, owner)).toBeUndefined();
        expect((await stores.subscriptions.getSubscriptions([s.id])).size).toBe(0);
        expect((await stores.deadLetters.listDeadLetters(s, { limit: 10 })).items).toEqual([]);
        expect(await stores.subscriptions.createSubscription(s)).toBe(true);
      });

      it("list the owner's oldest first, page by page; at an address, those there", async () => {
        const { node, address } = freshNode();
        const owner = `owner-${randomUUID()}`;
        const other = `${node}/sync/gnss-status/gnss-sync-status`;
        const made = [
          subscriptionTo(address, owner, '2026-01-01T00:00:03.000Z'),
          subscriptionTo(other, owner, '2026-01-01T00:00:01.000Z'),
          subscriptionTo(address, owner, '2026-01-01T00:00:02.000Z'),
        ];
        for (const s of made) await stores.subscriptions.createSubscription(s);
        await stores.subscriptions.createSubscription(subscriptionTo(address, `owner-${randomUUID()}`));

        const first = await stores.subscriptions.listSubscriptions(owner, undefined, { limit: 2 });
        expect(first?.items.map((s) => s.createdAt)).toEqual([
          '2026-01-01T00:00:01.000Z',
          '2026-01-01T00:00:02.000Z',
        ]);
        expect(first?.next).toBeDefined();
        const second = await stores.subscriptions.listSubscriptions(owner, undefined, {
          limit: 2,
          after: first?.next,
        });
        expect(second?.items.map((s) => s.createdAt)).toEqual(['2026-01-01T00:00:03.000Z']);
        expect(second?.next).toBeUndefined();
        expect(
          (await stores.subscriptions.listSubscriptions(owner, undefined, { limit: 3 }))?.next,
        ).toBeUndefined();

        const there = await allPages(async (after) => {
          const page = await stores.subscriptions.listSubscriptions(owner, address, { limit: 1, after });
          if (!page) throw new Error('no page');
          return page;
        });
        expect(there.items.map((s) => s.id).sort()).toEqual([made[0]?.id, made[2]?.id].sort());
        expect(there.items[0]?.signing).toBeUndefined();
      });

      it('at an address, every owner’s, page by page', async () => {
        const { address } = freshNode();
        const made = [1, 2, 3].map(() => subscriptionTo(address, `owner-${randomUUID()}`));
        for (const s of made) await stores.subscriptions.createSubscription(s);
        const all = await allPages(async (startKey) => {
          const page = await stores.subscriptions.subscriptionsAt(address, { startKey, limit: 2 });
          return { items: page.subscriptions, next: page.next };
        });
        expect(all.items.map((s) => s.id).sort()).toEqual(made.map((s) => s.id).sort());
        const unpaged = await stores.subscriptions.subscriptionsAt(address, {});
        expect(unpaged.subscriptions).toHaveLength(3);
      });

      it("are retired all at once: invisible everywhere, the list's cursor refused, made again afresh", async () => {
        const { node, address } = freshNode();
        const owner = `owner-${randomUUID()}`;
        const made = [subscriptionTo(address, owner), subscriptionTo(`${node}/sync`, owner)];
        for (const s of made) await stores.subscriptions.createSubscription(s);
        const kept = subscriptionTo(address, `owner-${randomUUID()}`);
        await stores.subscriptions.createSubscription(kept);
        const before = await stores.counters.counts();
        const page = await stores.subscriptions.listSubscriptions(owner, undefined, { limit: 1 });

        let job = await stores.subscriptions.retireAllSubscriptions(owner);
        expect((await stores.counters.counts()).subscriptions).toBe(before.subscriptions - 2);
        expect(await stores.subscriptions.getSubscription(made[0]?.id ?? '', owner)).toBeUndefined();
        expect((await stores.subscriptions.getSubscriptions(made.map((s) => s.id))).size).toBe(0);
        expect(
          await stores.subscriptions.listSubscriptions(owner, undefined, { limit: 1, after: page?.next }),
        ).toBe(undefined);
        expect(
          (await stores.subscriptions.listSubscriptions(owner, undefined, { limit: 10 }))?.items,
        ).toEqual([]);
        expect(await stores.subscriptions.getSubscription(kept.id, kept.owner)).toEqual(kept);
        while (job) job = await stores.subscriptions.removeRetired(job, () => false);

        expect(await stores.subscriptions.createSubscription(made[0] as Subscription)).toBe(true);
        expect(await stores.subscriptions.getSubscription(made[0]?.id ?? '', owner)).toEqual(made[0]);
        // Retired and removed again, nothing is left to retire.
        job = await stores.subscriptions.retireAllSubscriptions(owner);
        while (job) job = await stores.subscriptions.removeRetired(job, () => false);
        expect(await stores.subscriptions.getSubscription(made[0]?.id ?? '', owner)).toBeUndefined();
        expect(await stores.subscriptions.retireAllSubscriptions(owner)).toBeUndefined();
      });

      it('made with an initial notification, its cursor holds that event as delivered', async () => {
        const { node, address } = freshNode();
        const s = subscriptionTo(address, `owner-${randomUUID()}`);
        const { event, timeKey } = validateEvent(lockStateEvent({ node, time: T2 }));
        await stores.subscriptions.createSubscription(s, { resourceAddress: address, event, timeKey });
        const lease = async (time: string, id: string = randomUUID()) =>
          outcomes(
            await stores.cursors.acquireDeliveryLeases([
              attemptOf(s.id, address, { source: SOURCE, id, time }),
            ]),
          );
        expect(await lease(T2, event.id)).toEqual([{ kind: 'superseded' }]);
        expect(await lease(T1)).toEqual([{ kind: 'superseded' }]);
        // Read before a newer event's lease, which shows that event as delivered (it commits ahead).
        const deliveries = await stores.cursors.listDeliveries(s, { limit: 10 });
        expect(deliveries.items).toEqual([
          {
            resourceAddress: address,
            delivered: { source: SOURCE, id: event.id, time: event.time, deliveredAt: expect.any(Number) },
          },
        ]);
        expect(await lease(T3)).toEqual([{ kind: 'acquired' }]);
      });
    });

    describe('delivery cursors', () => {
      leaseRuleCases(() => stores.cursors);

      const pair = () => ({ id: randomUUID(), address: freshNode().address });
      const event = (time: string) => ({ source: SOURCE, id: randomUUID(), time });

      it('one lease at a time for a pair, even within one batch', async () => {
        const { id, address } = pair();
        const kinds = outcomes(
          await stores.cursors.acquireDeliveryLeases([
            attemptOf(id, address, event(T1)),
            attemptOf(id, address, event(T2)),
          ]),
        ).map((o) => o.kind);
        expect(kinds.sort()).toEqual(['acquired', 'leased']);
      });

      it('completed by the holder: the lease is free and the cursor moved', async () => {
        const { id, address } = pair();
        const e = event(T2);
        const a = attemptOf(id, address, e);
        outcomes(await stores.cursors.acquireDeliveryLeases([a]));
        outcomes(await stores.cursors.completeDeliveries([delivered(a, e)]));
        const next = attemptOf(id, address, event(T3));
        expect(outcomes(await stores.cursors.acquireDeliveryLeases([next]))).toEqual([{ kind: 'acquired' }]);
        expect(
          outcomes(await stores.cursors.acquireDeliveryLeases([attemptOf(id, address, event(T1))])),
        ).toEqual([{ kind: 'superseded' }]);
      });

      it('completed after the lease ran out: recorded forward only, the new holder’s lease left alone', async () => {
        const { id, address } = pair();
        const late = event(T2);
        const lateAttempt = attemptOf(id, address, late, -1);
        outcomes(await stores.cursors.acquireDeliveryLeases([lateAttempt]));
        const holder = attemptOf(id, address, event(T3), 60_000);
        expect(outcomes(await stores.cursors.acquireDeliveryLeases([holder]))).toEqual([
          { kind: 'acquired' },
        ]);
        outcomes(await stores.cursors.completeDeliveries([delivered(lateAttempt, late)]));
        // Recorded: its event is delivered now; and the holder still holds the lease.
        expect(outcomes(await stores.cursors.acquireDeliveryLeases([attemptOf(id, address, late)]))).toEqual([
          { kind: 'superseded' },
        ]);
        expect(
          outcomes(await stores.cursors.acquireDeliveryLeases([attemptOf(id, address, event(T3))])),
        ).toEqual([{ kind: 'leased', leaseUntil: holder.leaseUntil }]);
        // Never backward: an older event completed late leaves the newer one delivered.
        const older = event(T1);
        outcomes(await stores.cursors.completeDeliveries([delivered(attemptOf(id, address, older), older)]));
        // The holder's attempt fails: its cursor is back at the late one's event (leases commit ahead).
        await stores.cursors.releaseDeliveryLease(holder);
        const s = { ...subscriptionTo(address, 'owner'), id, createdAt: new Date(0).toISOString() };
        const [status] = (await stores.cursors.listDeliveries(s, { limit: 10 })).items;
        expect(status?.delivered?.id).toBe(late.id);
      });

      it('released by the holder only, keeping the failure', async () => {
        const { id, address } = pair();
        const a = attemptOf(id, address, event(T1), 60_000);
        outcomes(await stores.cursors.acquireDeliveryLeases([a]));
        const failure = { at: Date.now(), reason: 'HTTP 500', attempts: 1 };
        await stores.cursors.releaseDeliveryLease({ ...a, leaseOwner: randomUUID() }, failure);
        expect(
          outcomes(await stores.cursors.acquireDeliveryLeases([attemptOf(id, address, event(T1))])),
        ).toEqual([{ kind: 'leased', leaseUntil: a.leaseUntil }]);
        await stores.cursors.releaseDeliveryLease(a, failure);
        // Read before the next lease, which shows its event as delivered (it commits ahead).
        const s = { ...subscriptionTo(address, 'owner'), id, createdAt: new Date(0).toISOString() };
        expect((await stores.cursors.listDeliveries(s, { limit: 10 })).items).toEqual([
          { resourceAddress: address, lastFailure: failure },
        ]);
        expect(
          outcomes(await stores.cursors.acquireDeliveryLeases([attemptOf(id, address, event(T1))])),
        ).toEqual([{ kind: 'acquired' }]);
      });

      it('list what was delivered per address, page by page, of this incarnation only', async () => {
        const id = randomUUID();
        const { node } = freshNode();
        const addresses = ['/a', '/b', '/c'].map((suffix) => `${node}${suffix}`);
        for (const address of addresses) {
          const e = event(T1);
          const a = attemptOf(id, address, e);
          outcomes(await stores.cursors.acquireDeliveryLeases([a]));
          outcomes(await stores.cursors.completeDeliveries([delivered(a, e)]));
        }
        const s = {
          ...subscriptionTo(node, 'owner'),
          id,
          createdAt: new Date(Date.now() - 60_000).toISOString(),
        };
        const all = await allPages((after) => stores.cursors.listDeliveries(s, { limit: 2, after }));
        expect(all.items.map((status) => status.resourceAddress)).toEqual(addresses);
        expect(all.pages).toBe(2);
        const madeAgain = { ...s, createdAt: new Date(Date.now() + 60_000).toISOString() };
        expect((await stores.cursors.listDeliveries(madeAgain, { limit: 10 })).items).toEqual([]);
      });

      it('tell which dead letters were delivered since, or superseded', async () => {
        const { address } = freshNode();
        const s = subscriptionTo(address, 'owner');
        const e = event(T2);
        const a = attemptOf(s.id, address, e);
        outcomes(await stores.cursors.acquireDeliveryLeases([a]));
        outcomes(await stores.cursors.completeDeliveries([delivered(a, e)]));
        const older = deadLetterOf(s, T1);
        const same = { ...deadLetterOf(s, T2), event: { ...deadLetterOf(s, T2).event, id: e.id } };
        const newer = deadLetterOf(s, T3);
        const elsewhere = { ...deadLetterOf(s, T1), resourceAddress: `${address}/other` };
        const since = await stores.cursors.deliveredSince(s.id, [older, same, newer, elsewhere]);
        expect(since).toEqual(new Set([older, same]));
      });
    });

    describe('dead letters', () => {
      it('are kept per incarnation, oldest event first, paged, replaced by a repeat, removed', async () => {
        const { address } = freshNode();
        const s = subscriptionTo(address, 'owner', '2026-01-01T00:00:00.000Z');
        const letters = [T3, T1, T2].map((time) => deadLetterOf(s, time));
        for (const letter of letters) await stores.deadLetters.recordDeadLetter(letter);
        await stores.deadLetters.recordDeadLetter({ ...letters[0], reason: 'again' } as DeadLetterRecord);
        const earlier = { ...s, createdAt: '2025-01-01T00:00:00.000Z' };
        await stores.deadLetters.recordDeadLetter(deadLetterOf(earlier, T1));

        const all = await allPages((after) => stores.deadLetters.listDeadLetters(s, { limit: 2, after }));
        expect(all.items.map((l) => l.event.time)).toEqual([T1, T2, T3]);
        expect(all.items[2]?.reason).toBe('again');
        expect(all.pages).toBe(2);
        await stores.deadLetters.removeDeadLetters([letters[1] as DeadLetterRecord]);
        const left = await stores.deadLetters.listDeadLetters(s, { limit: 10 });
        expect(left.items.map((l) => l.event.time)).toEqual([T2, T3]);
        expect((await stores.deadLetters.listDeadLetters(earlier, { limit: 10 })).items).toHaveLength(1);
      });
    });

    describe('counters', () => {
      it('count subscriptions and publishers exactly as they are made and removed', async () => {
        const before = await stores.counters.counts();
        const { address } = freshNode();
        const p = publisherAt(address);
        await stores.publishers.createPublisher(p);
        await stores.publishers.createPublisher(p);
        const owner = `owner-${randomUUID()}`;
        const [a, b] = [subscriptionTo(address, owner), subscriptionTo(address, owner)] as [
          Subscription,
          Subscription,
        ];
        await stores.subscriptions.createSubscription(a);
        await stores.subscriptions.createSubscription(b);
        await stores.subscriptions.createSubscription(b);
        expect(await stores.counters.counts()).toEqual({
          subscriptions: before.subscriptions + 2,
          publishers: before.publishers + 1,
        });
        await stores.subscriptions.deleteSubscription(a.id, owner);
        await stores.subscriptions.deleteSubscription(a.id, owner);
        await stores.publishers.deletePublisher(p.id, 'anyone', false);
        expect(await stores.counters.counts()).toEqual({
          subscriptions: before.subscriptions + 1,
          publishers: before.publishers,
        });
      });
    });

    describe('webhook keys', () => {
      it('one per generation, oldest first, the private half sealed and opened only when asked', async () => {
        const known = await stores.webhookKeys.list(false);
        const generation = (known.at(-1)?.generation ?? 0) + 1;
        const key = (g: number) => ({
          id: `whk_${randomUUID()}`,
          generation: g,
          validFrom: Date.now() + g,
          publicKey: `whpk_${randomUUID()}`,
          privateKey: `private-${randomUUID()}`,
        });
        const [first, second] = [key(generation), key(generation + 1)];
        expect(await stores.webhookKeys.create(first)).toBe(true);
        expect(await stores.webhookKeys.create({ ...key(generation) })).toBe(false);
        expect(await stores.webhookKeys.create(second)).toBe(true);
        const listed = await stores.webhookKeys.list(false);
        expect(listed.slice(-2)).toEqual([first, second].map(({ privateKey: _, ...rest }) => rest));
        expect((await stores.webhookKeys.list(true)).slice(-2)).toEqual([first, second]);
        expect(await storedContains(first.privateKey)).toBe(false);
      });
    });

    it('the store answers a health check', async () => {
      await expect(stores.health.ping()).resolves.toBeUndefined();
    });

    it('finds a plaintext it holds (the check of sealed secrets works)', async () => {
      const owner = `owner-${randomUUID()}`;
      await stores.subscriptions.createSubscription(subscriptionTo(freshNode().address, owner));
      expect(await storedContains(owner)).toBe(true);
    });

    async function storedContains(text: string): Promise<boolean> {
      return (await stores.storedText()).includes(text);
    }
  });
}

function deadLetterOf(s: Subscription, time: string): DeadLetterRecord {
  const { event } = validateEvent(
    lockStateEvent({ node: s.resourceAddress.split('/sync')[0] ?? '/c/n', time }),
  );
  return {
    subscriptionId: s.id,
    subscriptionCreatedAt: s.createdAt,
    resourceAddress: s.resourceAddress,
    publisherId: publisherIdFor(s.resourceAddress),
    event,
    acceptedAt: new Date().toISOString(),
    reason: 'HTTP 500',
    attempts: 3,
    deadLetteredAt: new Date().toISOString(),
  };
}
