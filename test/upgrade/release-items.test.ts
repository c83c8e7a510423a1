/**
 * Data written by the last release is read by this one (docs/deploy.md: Upgrades): the items the
 * newest stored release's handlers wrote (test/upgrade/releases/<version>/items.json, made by
 * test/upgrade/write-release-items.ts at release time) are loaded into a fresh table, and today's
 * handlers serve them: lists, gets and the current state say what the user saw then; the
 * subscription that was delivered to is delivered to again, signed with the secret it subscribed
 * with and the release's v1a key; the dead letter is redriven to its consumer.
 */
import { createPublicKey, verify } from 'node:crypto';
import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as listSigningKeys } from '../../functions/http/list-signing-keys';
import { api, expectJson, LOCK_STATE, publishAccepted } from '../handlers/api';
import { type Consumer, type ReceivedNotification, startConsumer } from '../support/consumer';
import { testTable } from '../support/env';
import { lockStateEvent } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { waitForQueueIdle } from '../support/queue-idle';
import type { StoredSubscription } from './releases';

// The release sealed its secrets under its own data key: the handlers must open them with it, so
// it is this file's key before any of them loads (restored after, for the worker's next file).
const { release, fixture, savedKeyFile } = await vi.hoisted(async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { latestRelease, releaseItems } = await import('./releases');
  const release = latestRelease();
  const fixture = releaseItems(release.dir);
  const keyFile = join(mkdtempSync(join(tmpdir(), 'ocloud-release-key-')), 'signing-key');
  writeFileSync(keyFile, Buffer.from(fixture.signingDataKey, 'base64'), { mode: 0o600 });
  const savedKeyFile = process.env.SIGNING_KEY_FILE;
  process.env.SIGNING_KEY_FILE = keyFile;
  return { release, fixture, savedKeyFile };
});

let delivered: Consumer;
let deadLettered: Consumer;
/** The release's two subscriptions, their endpoints moved to this run's consumers. */
let subscriptions: { delivered: StoredSubscription; deadLettered: StoredSubscription };

beforeAll(async () => {
  // The consumers are back, the one that refused now taking notifications, on ports of this run:
  // the release's (ephemeral then) may be taken here, so its items are moved to these.
  delivered = await startConsumer([{ status: 204 }]);
  deadLettered = await startConsumer([{ status: 204 }]);
  let items = JSON.stringify(fixture.items);
  const moved = (stored: StoredSubscription, consumer: Consumer): StoredSubscription => {
    const endpointUri = new URL(stored.endpointUri);
    const origin = endpointUri.origin;
    endpointUri.port = new URL(consumer.url).port;
    items = items.replaceAll(origin, endpointUri.origin);
    return { ...stored, endpointUri: endpointUri.toString() };
  };
  subscriptions = {
    delivered: moved(fixture.delivered, delivered),
    deadLettered: moved(fixture.deadLettered, deadLettered),
  };
  const client = new DynamoDBClient({ endpoint: testTable.endpoint });
  const rows: typeof fixture.items = JSON.parse(items);
  for (let i = 0; i < rows.length; i += 25) {
    const batch = rows.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await client.send(new BatchWriteItemCommand({ RequestItems: { [testTable.tableName]: batch } }));
  }
});

afterAll(async () => {
  await Promise.all([delivered?.close(), deadLettered?.close()]);
  if (savedKeyFile === undefined) delete process.env.SIGNING_KEY_FILE;
  else process.env.SIGNING_KEY_FILE = savedKeyFile;
});

function verified(notification: ReceivedNotification | undefined, secret: string): unknown {
  const headers = notification?.headers ?? {};
  return new Webhook(secret).verify(notification?.raw ?? '', {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  });
}

describe(`the items release ${release.version} wrote, served by today's handlers`, () => {
  const address = `${fixture.node}${LOCK_STATE}`;

  it('lists and gets both subscriptions as they were made', async () => {
    const listed = expectJson<{ SubscriptionId: string; EndpointUri: string }[]>(
      await api.listSubscriptions(),
      200,
    );
    const stored = [subscriptions.delivered, subscriptions.deadLettered];
    expect(listed.map((s) => [s.SubscriptionId, s.EndpointUri]).sort()).toEqual(
      stored.map((s) => [s.subscriptionId, s.endpointUri]).sort(),
    );
    for (const { subscriptionId, endpointUri } of stored) {
      const got = expectJson<Record<string, unknown>>(await api.getSubscription(subscriptionId), 200);
      expect(got).toMatchObject({
        SubscriptionId: subscriptionId,
        EndpointUri: endpointUri,
        ResourceAddress: fixture.node,
      });
    }
  });

  it('serves the publisher, and its state as the current state', async () => {
    const publisher = expectJson<Record<string, unknown>>(await api.getPublisher(fixture.publisherId), 200);
    expect(publisher).toMatchObject({ SubscriptionId: fixture.publisherId, ResourceAddress: address });
    const state = expectJson<{ id: string; time: string; source: string }>(
      await api.currentState(address),
      200,
    );
    expect({ id: state.id, time: state.time, source: state.source }).toEqual(fixture.event);
  });

  it('says what was delivered to whom, and what was given up on', async () => {
    const deliveries = expectJson<{ ResourceAddress: string; Delivered?: { EventId?: string } }[]>(
      await api.listDeliveries(subscriptions.delivered.subscriptionId),
      200,
    );
    expect(deliveries).toHaveLength(1);
    expect(JSON.stringify(deliveries[0])).toContain(fixture.event.id);
    const letters = expectJson<unknown[]>(
      await api.listDeadLetters(subscriptions.deadLettered.subscriptionId),
      200,
    );
    expect(letters).toHaveLength(1);
    expect(JSON.stringify(letters[0])).toContain(fixture.event.id);
  });

  it('redrives the dead letter to its consumer, signed with the secret it subscribed with', async () => {
    const redriven = await api.redriveDeadLetters(subscriptions.deadLettered.subscriptionId);
    expect(redriven.status, redriven.rawBody).toBeLessThan(300);
    const [notification] = await deadLettered.waitFor(1);
    expect(verified(notification, subscriptions.deadLettered.signingSecret)).toMatchObject({
      id: fixture.event.id,
    });
    await waitForQueueIdle({ concerning: subscriptions.deadLettered.subscriptionId });
    expect(
      expectJson<unknown[]>(await api.listDeadLetters(subscriptions.deadLettered.subscriptionId), 200),
    ).toEqual([]);
  });

  it("delivers the publisher's next event to both, signed with their secrets and the release's v1a key", async () => {
    const event = lockStateEvent({ node: fixture.node, value: 'HOLDOVER' });
    // The release's state item has no event key (it kept accepted events as items of their own):
    // the next event is taken all the same, and then its repeat is known.
    await publishAccepted(fixture.publisherId, event);
    expect(expectJson(await api.publish(fixture.publisherId, event), 200)).toMatchObject({
      reason: 'duplicate',
    });
    const [received] = (await delivered.waitFor(1)).filter((n) => JSON.stringify(n.body).includes(event.id));
    await vi.waitFor(() => expect(deadLettered.received).toHaveLength(2));
    expect(verified(received, subscriptions.delivered.signingSecret)).toMatchObject({ id: event.id });
    expect(verified(deadLettered.received[1], subscriptions.deadLettered.signingSecret)).toMatchObject({
      id: event.id,
    });
    // The v1a signature verifies with a key GET /signing-keys lists, as a consumer checks it.
    const listed = await invoke(listSigningKeys, httpApiEvent({ method: 'GET', path: '/signing-keys' }));
    const keys = (listed.body as { Keys: { Jwk: Record<string, string> }[] }).Keys.map((key) =>
      createPublicKey({ key: key.Jwk, format: 'jwk' }),
    );
    const headers = received?.headers ?? {};
    const content = Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${received?.raw}`);
    const v1a = String(headers['webhook-signature'])
      .split(' ')
      .filter((signature) => signature.startsWith('v1a,'));
    expect(v1a).toHaveLength(1);
    expect(
      keys.some((key) => verify(null, content, key, Buffer.from(String(v1a[0]).slice(4), 'base64'))),
    ).toBe(true);
  });
});
