/**
 * POST /subscriptions' first checks against the real table, with a stand-in for the endpoint
 * gate (the network policy and the sanity-check POST) so that its timing and verdicts can be
 * set: the policy check and the store's read for the 409 and the 404 run together, and the
 * policy's 400 still wins over both.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from '../../lib/domain/event';
import type { DeliveryPort, EndpointGate, SubscriptionStore } from '../../lib/domain/ports';
import { Publish } from '../../lib/domain/publish';
import { Subscribe } from '../../lib/domain/subscribe';
import { BadRequestError } from '../../lib/errors';
import {
  publisherStore,
  signingSubscriptionStore as subscriptionStore,
  subscriptions,
} from '../../lib/services';
import { lockStatePublisher } from '../support/api';
import { lockStateEvent } from '../support/fixtures';

const OWNER = 'arn:aws:iam::123456789012:user/subscribe-checks';

const noDelivery: DeliveryPort = {
  eventAccepted: async () => undefined,
  currentStatesFor: async () => undefined,
};

class StandInGate implements EndpointGate {
  readonly posted: string[] = [];
  readonly timeoutMs = 2000;
  constructor(private readonly check: () => Promise<void>) {}
  assertAllowed(): Promise<void> {
    return this.check();
  }
  async sendInitial(endpointUri: string, _event: NotificationEvent): Promise<string | undefined> {
    this.posted.push(endpointUri);
    return undefined;
  }
  async probe(): Promise<string | undefined> {
    return undefined;
  }
}

const allowAll = () => new StandInGate(async () => undefined);
const forbidAll = () =>
  new StandInGate(async () => {
    throw new BadRequestError('EndpointUri host example.invalid is not allowed');
  });

async function publisherWithState() {
  const { node, address, publisherId } = await lockStatePublisher({ withState: false });
  await new Publish(publisherStore(), noDelivery, { timeToleranceMs: 2000 }).publish(
    publisherId,
    lockStateEvent({ node }),
  );
  return address;
}

const request = (address: string) => ({
  ResourceAddress: address,
  EndpointUri: `https://consumer.example.com/${randomUUID()}`,
});

describe('POST /subscriptions: the endpoint policy and the 409/404 read', () => {
  it('run together: the store is read while the policy check is still under way', async () => {
    const address = await publisherWithState();
    const calls: string[] = [];
    const gate = new StandInGate(async () => {
      calls.push('policy started');
      // As long as a DNS lookup might take.
      await new Promise((resolve) => setTimeout(resolve, 100));
      calls.push('policy done');
    });
    const store = subscriptionStore();
    const watched: SubscriptionStore = Object.assign(Object.create(store) as SubscriptionStore, {
      subscribeCheck: (keys: Parameters<SubscriptionStore['subscribeCheck']>[0]) => {
        calls.push('read started');
        return store.subscribeCheck(keys);
      },
    });

    const result = await new Subscribe(watched, gate, noDelivery).create(OWNER, request(address));

    expect(result.kind).toBe('created');
    expect(calls.indexOf('read started')).toBeGreaterThan(-1);
    expect(calls.indexOf('read started')).toBeLessThan(calls.indexOf('policy done'));
    expect(gate.posted).toHaveLength(1);
  });

  it('answers 400 for a forbidden endpoint even where the same subscription exists (409)', async () => {
    const address = await publisherWithState();
    const body = request(address);
    const first = await new Subscribe(subscriptionStore(), allowAll(), noDelivery).create(OWNER, body);
    expect(first.kind).toBe('created');

    const gate = forbidAll();
    await expect(new Subscribe(subscriptionStore(), gate, noDelivery).create(OWNER, body)).rejects.toThrow(
      BadRequestError,
    );
    expect(gate.posted).toEqual([]);
  });

  it('answers 400 for a forbidden endpoint while the store fails, and without waiting for it', async () => {
    const address = await publisherWithState();
    let failRead: (error: Error) => void = () => undefined;
    const store = subscriptionStore();
    const stalled: SubscriptionStore = Object.assign(Object.create(store) as SubscriptionStore, {
      subscribeCheck: () =>
        new Promise((_, reject) => {
          failRead = reject;
        }),
    });

    await expect(
      new Subscribe(stalled, forbidAll(), noDelivery).create(OWNER, request(address)),
    ).rejects.toThrow(BadRequestError);
    // The store's failure arrives after the answer, and nobody is left waiting for it.
    failRead(new Error('store unavailable'));
  });

  it('answers 400 for a forbidden endpoint even where no publisher is (404), storing nothing', async () => {
    const address = `/nobody-${randomUUID().slice(0, 8)}/site-1/node-1`;
    const gate = forbidAll();

    await expect(
      new Subscribe(subscriptionStore(), gate, noDelivery).create(OWNER, request(address)),
    ).rejects.toThrow(BadRequestError);

    expect(gate.posted).toEqual([]);
    expect((await subscriptions().list(OWNER, address, { limit: 1000 })).items).toEqual([]);
  });
});
