/**
 * The contract suite (test/contract/contract-suite.ts) against the region as `npm start` runs it:
 * serverless offline (the handlers as esbuild bundles them, the routes of serverless.yml) against
 * the run's DynamoDB Local, with the local queue (docs/local-queue.md). Offline is started once for
 * the whole file. After the suite, what only offline has: its Lambda endpoint, through which the
 * local queue invokes the clean-up function.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BASE_PATH as API_PATH } from '../../lib/http/base-path';
import { ensureTable, freePort } from '../../scripts/dynamodb-local';
import { type Offline, startOffline } from '../../scripts/offline';
import { uniqueCluster } from '../support/fixtures';
import { waitForQueueIdle } from '../support/queue-idle';
import { contractSuite } from './contract-suite';
import { callApi, isLambdaError } from './http';

const LOCAL_TABLE = 'ocloud-notifications-local';

let api: Offline | undefined;

function started(): Offline {
  if (!api) throw new Error('serverless offline has not started');
  return api;
}

/**
 * Offline starts a worker per function on first use (~0.1–1 s, far more on a loaded machine).
 * One harmless request per route, repeated if offline reports a Lambda time-out, so that the
 * tests measure the service rather than cold starts. The cold case has a test of its own.
 */
async function warmUp(url: string): Promise<void> {
  const id = randomUUID();
  const requests: [string, string, unknown?][] = [
    ['GET', '/subscriptions'],
    ['POST', '/subscriptions', {}],
    ['GET', `/subscriptions/${id}`],
    ['DELETE', `/subscriptions/${id}`],
    ['DELETE', '/subscriptions'],
    ['GET', `/${uniqueCluster()}/site/node/CurrentState`],
    ['GET', '/publishers'],
    ['POST', '/publishers', {}],
    ['GET', `/publishers/${id}`],
    ['DELETE', `/publishers/${id}`],
    ['POST', `/publishers/${id}/events`, {}],
    ['POST', `/subscriptions/${id}/secret/rotate`],
    ['GET', '/openapi.json'],
  ];
  for (const [method, path, body] of requests) {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!isLambdaError(await callApi(url, method, path, { body }))) break;
    }
  }
}

beforeAll(async () => {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  if (!endpoint) throw new Error('AWS_ENDPOINT_URL_DYNAMODB is not set (test/support/env.ts)');
  await ensureTable({ endpoint, tableName: LOCAL_TABLE });
  api = await startOffline({ port: await freePort(), dynamoEndpoint: endpoint, quiet: true });
  await warmUp(api.url);
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

contractSuite({
  name: 'the region (npm start: serverless offline, DynamoDB Local, the local queue)',
  get url() {
    return started().url;
  },
  freshPrefix: () => `/${uniqueCluster()}`,
  waitForIdle: (concerning) => waitForQueueIdle({ queueUrl: started().queue?.url, concerning }),
  serviceName: 'ocloud-notifications',
});

describe('only on serverless offline', () => {
  it('serves on the port it was given', () => {
    expect(started().url).toBe(`http://127.0.0.1:${started().port}${API_PATH}`);
  });

  it("the clean-up job (after the suite's delete-all) runs as its own function through offline's Lambda endpoint, leaving no dead letter", async () => {
    const queue = started().queue;
    if (!queue) throw new Error('npm start runs without its local queue');
    await vi.waitFor(() => expect(queue.idle()).toBe(true), { timeout: 30_000, interval: 50 });
    expect(queue.messages('cleanup')).toEqual([]);
    expect(queue.deadLetters()).toEqual([]);
  });
});
