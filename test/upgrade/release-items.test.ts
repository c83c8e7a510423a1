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

const portOf = (uri: string) => Number(new URL(uri).port);
let delivered: Consumer;
let deadLettered: Consumer;

beforeAll(async () => {
  const client = new DynamoDBClient({ endpoint: testTable.endpoint });
  for (let i = 0; i < fixture.items.length; i += 25) {
    const batch = fixture.items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await client.send(new BatchWriteItemCommand({ RequestItems: { [testTable.tableName]: batch } }));
  }
  // The consumers are back where they were; the one that refused now takes notifications.
  delivered = await startConsumer([{ status: 204 }], portOf(fixture.delivered.endpointUri));
  deadLettered = await startConsumer([{ status: 204 }], portOf(fixture.deadLettered.endpointUri));
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
    const stored = [fixture.delivered, fixture.deadLettered];
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
      await api.listDeliveries(fixture.delivered.subscriptionId),
      200,
    );
    expect(deliveries).toHaveLength(1);
    expect(JSON.stringify(deliveries[0])).toContain(fixture.event.id);
    const letters = expectJson<unknown[]>(
      await api.listDeadLetters(fixture.deadLettered.subscriptionId),
      200,
    );
    expect(letters).toHaveLength(1);
    expect(JSON.stringify(letters[0])).toContain(fixture.event.id);
  });

  it('redrives the dead letter to its consumer, signed with the secret it subscribed with', async () => {
    const redriven = await api.redriveDeadLetters(fixture.deadLettered.subscriptionId);
    expect(redriven.status, redriven.rawBody).toBeLessThan(300);
    const [notification] = await deadLettered.waitFor(1);
    expect(verified(notification, fixture.deadLettered.signingSecret)).toMatchObject({
      id: fixture.event.id,
    });
    await waitForQueueIdle({ concerning: fixture.deadLettered.subscriptionId });
    expect(
      expectJson<unknown[]>(await api.listDeadLetters(fixture.deadLettered.subscriptionId), 200),
    ).toEqual([]);
  });

  it("delivers the publisher's next event to both, signed with their secrets and the release's v1a key", async () => {
    const event = lockStateEvent({ node: fixture.node, value: 'HOLDOVER' });
    await publishAccepted(fixture.publisherId, event);
    const [received] = (await delivered.waitFor(1)).filter((n) => JSON.stringify(n.body).includes(event.id));
    await vi.waitFor(() => expect(deadLettered.received).toHaveLength(2));
    expect(verified(received, fixture.delivered.signingSecret)).toMatchObject({ id: event.id });
    expect(verified(deadLettered.received[1], fixture.deadLettered.signingSecret)).toMatchObject({
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
