/**
 * Exact budgets of every HTTP route and of the clean-up and gauge functions: each function's AWS
 * calls for one typical request on a warm instance (the stack's first subscribe, which makes the
 * signing data key, is its own case), counted through the product's own SDK clients and compared
 * with the budget table (budget-table.ts). The notification path (publish, fan-out, deliver):
 * notifications.test.ts. `npm run budgets` prints what was counted.
 */
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordAwsCalls } from '../../bench/aws-calls.mjs';
import { serverlessFunctions } from '../../bench/common.mjs';
import { handler as listSigningKeysHandler } from '../../functions/http/list-signing-keys';
import { handler as emitGaugesHandler } from '../../functions/schedule/emit-gauges';
import { handler as rotateWebhookKeysHandler } from '../../functions/schedule/rotate-webhook-keys';
import { producerGrants, publisherRate } from '../../lib/services';
import {
  type ApiResponse,
  api,
  freshNode,
  LOCK_STATE,
  lockStatePublisher,
  registerPublisher,
} from '../support/api';
import { lockStateEvent } from '../support/fixtures';
import { httpApiEvent, invoke, lambdaContext } from '../support/http-event';
import { overBudget, printTable, type Tallied, tally } from './budget-check';
import { CALL_BUDGETS } from './budget-table';
import { callsOf, useBudgetHarness } from './harness';

const harness = useBudgetHarness();
const counted: Tallied[] = [];

/** Runs `request` as one invocation of `fn` on a quiet queue and checks its calls against the table. */
async function expectWithinBudget(
  fn: string,
  request: () => Promise<ApiResponse | undefined>,
  status?: number,
  invocation = fn,
) {
  const h = harness();
  await h.drainAll();
  h.recording.reset();
  const response = await h.invoke(invocation, request);
  if (status !== undefined) expect(response?.status, response?.rawBody).toBe(status);
  await settled(h.recording.calls);
  const calls = callsOf(h.recording.take(), invocation);
  counted.push({ fn, calls: tally(calls) });
  expect.soft(overBudget(fn, calls, CALL_BUDGETS)).toEqual([]);
  return response;
}

/**
 * Waits until no call is in flight and none has started for 100 ms: work a handler starts beside
 * its answer (the stack's first subscribe makes the first v1a key so) is its invocation's too, and
 * under load it can end after the answer.
 */
async function settled(calls: readonly { endedAt: number }[]) {
  let seen = -1;
  while (calls.length !== seen || calls.some((call) => call.endedAt === 0)) {
    seen = calls.length;
    await setTimeout(100);
  }
}

let node = '';
let address = '';
let publisherId = '';
let subscriptionId = '';

beforeAll(async () => {
  ({ node, address, publisherId } = await lockStatePublisher());
});

afterAll(() => {
  printTable('AWS calls per request (warm instance)', counted);
});

describe('exact budgets of the HTTP routes', () => {
  it("the stack's first subscribe makes the signing data key (KMS GenerateDataKey)", async () => {
    await expectWithinBudget(
      "createSubscription: the stack's first",
      () => api.createSubscription({ ResourceAddress: address, EndpointUri: harness().consumer.url }),
      201,
      'createSubscription',
    );
  });

  it('POST /subscriptions to an address with a state (an initial notification)', async () => {
    const response = await expectWithinBudget(
      'createSubscription',
      () => api.createSubscription({ ResourceAddress: `${node}/sync`, EndpointUri: harness().consumer.url }),
      201,
    );
    subscriptionId = (response?.body as { SubscriptionId?: string } | undefined)?.SubscriptionId ?? '';
    expect(subscriptionId).not.toBe('');
  });

  it('a cold instance unwraps the signing data key once: one GetItem and one KMS Decrypt more', async () => {
    // A new module graph is a new Lambda instance: new clients, no data key yet.
    vi.resetModules();
    const [{ handler }, dynamo, sqs, kms] = await Promise.all([
      import('../../functions/http/create-subscription'),
      import('../../lib/store/dynamo-client'),
      import('../../lib/queue/sqs-queue'),
      import('../../lib/secrets/kms-data-key'),
    ]);
    const recording = recordAwsCalls(dynamo.documentClient(), sqs.sqsClient(), kms.kmsClient());
    try {
      const body = { ResourceAddress: `${node}/sync/ptp-status`, EndpointUri: harness().consumer.url };
      const response = await invoke(handler, httpApiEvent({ method: 'POST', path: '/subscriptions', body }));
      expect(response.status, response.rawBody).toBe(201);
      const fn = 'createSubscription: a cold instance';
      const calls = recording.take();
      counted.push({ fn, calls: tally(calls) });
      expect.soft(overBudget(fn, calls, CALL_BUDGETS)).toEqual([]);
    } finally {
      recording.stop();
    }
  });

  it('POST …/events', async () => {
    // A rate interval after the publisher's last event (lib/domain/event-rate.ts): the publish
    // update's rate branch is the idle one whatever this instance guessed, so its writes do not
    // depend on how fast the machine ran the tests before it (a wrong guess is a cancelled
    // transaction's write units more).
    await setTimeout(1000 / publisherRate().eventsPerSecond);
    await expectWithinBudget('publishEvent', () => api.publish(publisherId, lockStateEvent({ node })), 202);
  });

  it('the subscription routes', async () => {
    const id = subscriptionId;
    await expectWithinBudget('getSubscription', () => api.getSubscription(id), 200);
    await expectWithinBudget('listSubscriptions', () => api.listSubscriptions(), 200);
    await expectWithinBudget('rotateSubscriptionSecret', () => api.rotateSecret(id), 200);
    await expectWithinBudget('listDeliveries', () => api.listDeliveries(id), 200);
    await expectWithinBudget('listDeadLetters', () => api.listDeadLetters(id), 200);
    await expectWithinBudget('redriveDeadLetters', () => api.redriveDeadLetters(id), 200);
    await expectWithinBudget('deleteSubscription', () => api.deleteSubscription(id), 204);
  });

  it('the publisher routes, current state, health and the call-free routes', async () => {
    await expectWithinBudget('getCurrentState', () => api.currentState(address), 200);
    await expectWithinBudget('listPublishers', () => api.listPublishers(), 200);
    await expectWithinBudget('health', () => api.health(), 200);
    await expectWithinBudget('openApi', () => api.openApi(), 200);
    await expectWithinBudget('notFound', () => api.unrouted('GET', '/nothing-here'), 404);
    await expectWithinBudget(
      'createPublisher',
      () => api.createPublisher({ ResourceAddress: `${freshNode()}${LOCK_STATE}` }),
      201,
    );
    // A named producer: its grants are read first (the unnamed one of the local stage holds them all).
    const granted = freshNode();
    await producerGrants().addGrant('local:budget', granted);
    await expectWithinBudget(
      'createPublisher: a named producer',
      () =>
        api.createPublisher(
          { ResourceAddress: `${granted}${LOCK_STATE}` },
          { headers: { 'x-producer-id': 'budget' } },
        ),
      201,
    );
    const id = await registerPublisher(`${freshNode()}${LOCK_STATE}`);
    await expectWithinBudget('getPublisher', () => api.getPublisher(id), 200);
    await expectWithinBudget('deletePublisher', () => api.deletePublisher(id), 204);
  });

  it('DELETE /subscriptions, and the clean-up that removes what it retired (two subscriptions)', async () => {
    await expectWithinBudget('deleteAllSubscriptions', () => api.deleteAllSubscriptions(), 204);
    const h = harness();
    h.recording.reset();
    await h.drain('cleanup');
    const calls = callsOf(h.recording.take(), 'removeRetiredSubscriptions');
    counted.push({ fn: 'removeRetiredSubscriptions', calls: tally(calls) });
    expect.soft(overBudget('removeRetiredSubscriptions', calls, CALL_BUDGETS)).toEqual([]);
  });

  it('the gauges of every minute', async () => {
    await expectWithinBudget('emitGauges', async () => {
      await emitGaugesHandler({}, lambdaContext());
      return undefined;
    });
  });

  it('the v1a keys: GET /signing-keys, and the daily rotation while the signing key is young', async () => {
    await expectWithinBudget(
      'listSigningKeys',
      () =>
        invoke(
          listSigningKeysHandler as Parameters<typeof invoke>[0],
          httpApiEvent({
            method: 'GET',
            path: '/signing-keys',
            routeKey: 'GET /api/ocloudNotifications/v2/signing-keys',
          }),
        ),
      200,
    );
    await expectWithinBudget('rotateWebhookKeys', async () => {
      await rotateWebhookKeysHandler({}, lambdaContext());
      return undefined;
    });
  });

  it('every function of serverless.yml has its rows in the budget table', async () => {
    const functions = Object.keys(await serverlessFunctions());
    const budgeted = new Set(CALL_BUDGETS.map((row) => row.fn.split(':')[0]));
    expect(functions.filter((fn) => !budgeted.has(fn))).toEqual([]);
  });
});
