/**
 * Signed notifications (Standard Webhooks v1), checked with the `standardwebhooks` package a
 * consumer would use, not with our own code: the initial notification, queued deliveries, forged
 * ones, client-supplied secrets, rotation and its grace period, and the secret at rest.
 */

import { stat } from 'node:fs/promises';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signingConfig } from '../../lib/config';
import { signingWebhookKeys } from '../../lib/services';
import { documentClient } from '../../lib/store/dynamo-client';
import { DynamoTable } from '../../lib/store/dynamo-table';
import { keys } from '../../lib/store/keys';
import { DynamoSubscriptionStore } from '../../lib/store/subscription-store';
import { type ReceivedNotification, trackConsumers } from '../support/consumer';
import { testSecretBox } from '../support/env';
import { lockStateEvent } from '../support/fixtures';
import {
  api,
  expectJson,
  expectProblem,
  expectSubscribed,
  lockStatePublisher,
  publishAccepted,
  SIGNING_SECRET,
  type SubscriptionInfo,
  signingSecretOf,
} from './api';

const startConsumer = trackConsumers();
// The v1a key exists before the first subscribe, as the daily rotateWebhookKeys (or npm start) makes it.
await signingWebhookKeys().ensure(Date.now());
const table = new DynamoTable(documentClient(), String(process.env.TABLE_NAME));

function signedHeaders(notification: ReceivedNotification): Record<string, string> {
  const headers = notification.headers;
  return {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
}

/** The HMAC signatures only: the header carries the service's `v1a` beside them. */
function v1Signatures(notification: ReceivedNotification): string[] {
  return String(notification.headers['webhook-signature'])
    .split(' ')
    .filter((signature) => signature.startsWith('v1,'));
}

function verifies(secret: string, notification: ReceivedNotification, raw = notification.raw): boolean {
  try {
    new Webhook(secret).verify(raw, signedHeaders(notification));
    return true;
  } catch {
    return false;
  }
}

/** A subscribed consumer that has received the initial notification of a lock-state publisher. */
async function subscribedWithInitial(body: Record<string, unknown> = {}) {
  const publisher = await lockStatePublisher();
  const consumer = await startConsumer();
  const response = await api.createSubscription({
    ResourceAddress: publisher.address,
    EndpointUri: consumer.url,
    ...body,
  });
  const info = expectSubscribed(response);
  const [initial] = await consumer.waitFor(1);
  return {
    publisher,
    consumer,
    info,
    secret: signingSecretOf(response),
    initial: initial as ReceivedNotification,
  };
}

describe('webhook-signature', () => {
  it('signs the initial notification so that standardwebhooks verifies it with the 201 secret', async () => {
    const { initial, secret, publisher } = await subscribedWithInitial();
    // v1 with the subscription's secret, then v1a with the service's key (test/security covers v1a).
    expect(initial.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1a,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(initial.raw, signedHeaders(initial))).toEqual(publisher.event);
  });

  it('signs queued deliveries with the same secret', async () => {
    const { publisher, consumer, secret } = await subscribedWithInitial();
    const event = lockStateEvent({ node: publisher.node, value: 'FREERUN' });
    await publishAccepted(publisher.publisherId, event);
    const [, delivered] = await consumer.waitFor(2);
    expect(
      new Webhook(secret).verify(delivered?.raw ?? '', signedHeaders(delivered as ReceivedNotification)),
    ).toEqual(event);
  });

  it('fails verification for a tampered body, a tampered timestamp or another secret', async () => {
    const { initial, secret } = await subscribedWithInitial();
    expect(verifies(secret, initial)).toBe(true);
    const forged = initial.raw.replace(/"value":"[A-Z]+"/, '"value":"FORGED"');
    expect(forged).not.toBe(initial.raw);
    expect(verifies(secret, initial, forged)).toBe(false);
    expect(verifies(secret, initial, `${initial.raw} `)).toBe(false);
    const moved = {
      ...initial,
      headers: {
        ...initial.headers,
        'webhook-timestamp': String(Number(initial.headers['webhook-timestamp']) - 1),
      },
    };
    expect(verifies(secret, moved)).toBe(false);
    const other = await subscribedWithInitial();
    expect(verifies(other.secret, initial)).toBe(false);
  });

  it('uses a SigningSecret the client supplies', async () => {
    const supplied = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const { initial, secret } = await subscribedWithInitial({ SigningSecret: supplied });
    expect(secret).toBe(supplied);
    expect(verifies(supplied, initial)).toBe(true);
  });

  it.each([
    ['not a string', 42],
    ['without the whsec_ prefix', Buffer.alloc(32, 1).toString('base64')],
    ['too short (16 bytes)', `whsec_${Buffer.alloc(16, 1).toString('base64')}`],
    ['too long (65 bytes)', `whsec_${Buffer.alloc(65, 1).toString('base64')}`],
    ['not base64', `whsec_${'*'.repeat(40)}`],
    ['empty', ''],
  ])(
    'refuses a SigningSecret %s with 400 naming it, storing nothing and echoing nothing',
    async (_label, value) => {
      const publisher = await lockStatePublisher();
      const consumer = await startConsumer();
      const response = await api.createSubscription({
        ResourceAddress: publisher.address,
        EndpointUri: consumer.url,
        SigningSecret: value,
      });
      expectProblem(response, 400, 'SigningSecret');
      if (typeof value === 'string' && value.length > 0) expect(response.rawBody).not.toContain(value);
      expect(expectJson(await api.listSubscriptions(`?ResourceAddress=${publisher.address}`), 200)).toEqual(
        [],
      );
      expect(consumer.received).toEqual([]);
    },
  );

  it('returns the secret once: GET, the list and a 409 never carry it', async () => {
    const { info, publisher, consumer } = await subscribedWithInitial();
    const read = await api.getSubscription(info.SubscriptionId);
    const listed = await api.listSubscriptions();
    const again = await api.createSubscription({
      ResourceAddress: publisher.address,
      EndpointUri: consumer.url,
    });
    expect(expectJson<SubscriptionInfo>(read, 200)).toEqual(info);
    for (const response of [read, listed, again]) expect(response.rawBody).not.toContain('whsec_');
    expectProblem(again, 409);
  });
});

describe('POST /subscriptions/{id}/secret/rotate', () => {
  it('answers a new secret once; during the grace period both signatures are sent and each verifies', async () => {
    const { publisher, consumer, info, secret: old } = await subscribedWithInitial();

    const response = await api.rotateSecret(info.SubscriptionId);
    const rotated = expectJson<{ SigningSecret: string; PreviousSecretValidUntil: string }>(response, 200);
    expect(Object.keys(rotated).sort()).toEqual(['PreviousSecretValidUntil', 'SigningSecret']);
    expect(rotated.SigningSecret).toMatch(SIGNING_SECRET);
    expect(rotated.SigningSecret).not.toBe(old);
    const grace = Date.parse(rotated.PreviousSecretValidUntil) - Date.now();
    expect(grace).toBeGreaterThan((signingConfig().rotationGraceSeconds - 60) * 1000);

    await publishAccepted(publisher.publisherId, lockStateEvent({ node: publisher.node, value: 'HOLDOVER' }));
    const [, delivered] = (await consumer.waitFor(2)) as ReceivedNotification[];
    expect(v1Signatures(delivered as ReceivedNotification)).toHaveLength(2);
    expect(verifies(rotated.SigningSecret, delivered as ReceivedNotification)).toBe(true);
    expect(verifies(old, delivered as ReceivedNotification)).toBe(true);
    expect((await api.getSubscription(info.SubscriptionId)).rawBody).not.toContain('whsec_');
  });

  it('after the grace period signs with the new secret only', async () => {
    const { publisher, consumer, info, secret: old } = await subscribedWithInitial();
    const fresh = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    // The grace period as if it had passed: the store is given an end in the past.
    await new DynamoSubscriptionStore(table, testSecretBox()).rotateSigningSecret(
      info.SubscriptionId,
      'anonymous',
      fresh,
      Date.now() - 1,
    );

    await publishAccepted(publisher.publisherId, lockStateEvent({ node: publisher.node, value: 'FREERUN' }));
    const [, delivered] = (await consumer.waitFor(2)) as ReceivedNotification[];
    expect(v1Signatures(delivered as ReceivedNotification)).toHaveLength(1);
    expect(verifies(fresh, delivered as ReceivedNotification)).toBe(true);
    expect(verifies(old, delivered as ReceivedNotification)).toBe(false);
  });

  it('takes a SigningSecret from the body, validated like the create', async () => {
    const { info } = await subscribedWithInitial();
    const supplied = `whsec_${Buffer.alloc(40, 3).toString('base64')}`;
    const ok = await api.rotateSecret(info.SubscriptionId, { SigningSecret: supplied });
    expect(expectJson<{ SigningSecret: string }>(ok, 200).SigningSecret).toBe(supplied);
    expectProblem(
      await api.rotateSecret(info.SubscriptionId, { SigningSecret: 'whsec_short' }),
      400,
      'SigningSecret',
    );
    expectProblem(await api.rotateSecret(info.SubscriptionId, '[1]'), 400);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expectProblem(await api.rotateSecret('3f1c7c1e-9d7a-4c55-8f0e-1b2a3c4d5e6f'), 404);
    expectProblem(await api.rotateSecret('not-an-id'), 404);
  });
});

describe('secrets at rest', () => {
  it('stores only AES-GCM ciphertext bound to the subscription, under a key file only its owner may read', async () => {
    const { info, secret } = await subscribedWithInitial();
    const item = await table.get(keys.subscription(info.SubscriptionId));
    const sealed = String(item?.signingSecret);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
    expect(JSON.stringify(item)).not.toContain(secret.slice('whsec_'.length, 20));
    const key = signingConfig().key;
    if (key.kind !== 'file') throw new Error('the tests run with the local key file');
    expect((await stat(key.path)).mode & 0o777).toBe(0o600);
  });
});
