/**
 * Not part of `npm test`: `npm run release` runs it (vitest.release.config.mts) with
 * RELEASE_FIXTURE_DIR set, so that the release's own handlers, over DynamoDB Local and the local
 * queue as in the handler tests, write one item of each kind a user's actions leave in the table:
 * a publisher and its state (with the accepted event's record), two subscriptions (their sealed
 * secrets, their owner's count), the v1a signing key, a delivery cursor and a dead letter. The
 * table is then scanned into `items.json`, which test/upgrade/release-items.test.ts reads with the
 * handlers of every later release.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { newSigningSecret } from '../../lib/domain/signing-secret';
import { version } from '../../package.json';
import { freePort } from '../../scripts/dynamodb-local';
import {
  api,
  expectJson,
  expectSubscribed,
  LOCK_STATE,
  publishAccepted,
  registerPublisher,
} from '../handlers/api';
import { startConsumer } from '../support/consumer';
import { testTable } from '../support/env';
import { lockStateEvent } from '../support/fixtures';
import { waitForQueueIdle } from '../support/queue-idle';
import type { ReleaseItems } from './releases';

const into = process.env.RELEASE_FIXTURE_DIR;

it.runIf(into)("writes one item of each kind through this release's handlers", async () => {
  const node = '/release-cluster/site-1/node-1';
  // Two consumers on ports the reading test listens on again: one takes every notification, the
  // other refuses them for good (400), so its notification is dead-lettered at once.
  const accepting = await startConsumer([{ status: 204 }], await freePort());
  const refusing = await startConsumer([{ status: 400 }], await freePort());
  try {
    const publisherId = await registerPublisher(`${node}${LOCK_STATE}`);
    const subscribe = async (endpointUri: string) => {
      const signingSecret = newSigningSecret();
      const created = await api.createSubscription({
        ResourceAddress: node,
        EndpointUri: endpointUri,
        SigningSecret: signingSecret,
      });
      return { subscriptionId: expectSubscribed(created).SubscriptionId, endpointUri, signingSecret };
    };
    // Subscribed before the first event: there is no state yet to send them at once.
    const delivered = await subscribe(accepting.url);
    const deadLettered = await subscribe(refusing.url);
    const event = lockStateEvent({ node, value: 'LOCKED' });
    await publishAccepted(publisherId, event);
    await Promise.all([accepting.waitFor(1), refusing.waitFor(1)]);
    await waitForQueueIdle({ concerning: node });
    const letters = expectJson<unknown[]>(await api.listDeadLetters(deadLettered.subscriptionId), 200);
    expect(letters).toHaveLength(1);

    const client = new DynamoDBClient({ endpoint: testTable.endpoint });
    const items: ReleaseItems['items'] = [];
    for await (const page of paginateScan({ client }, { TableName: testTable.tableName })) {
      items.push(...(page.Items ?? []));
    }
    const fixture: ReleaseItems = {
      version,
      signingDataKey: readFileSync(String(process.env.SIGNING_KEY_FILE)).toString('base64'),
      node,
      publisherId,
      event: { id: event.id, time: event.time, source: event.source },
      delivered,
      deadLettered,
      items: items.sort((a, b) => `${a.pk?.S}|${a.sk?.S}`.localeCompare(`${b.pk?.S}|${b.sk?.S}`)),
    };
    writeFileSync(join(String(into), 'items.json'), `${JSON.stringify(fixture, null, 2)}\n`);
  } finally {
    await Promise.all([accepting.close(), refusing.close()]);
  }
});
