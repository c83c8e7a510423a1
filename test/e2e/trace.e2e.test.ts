/**
 * One trace from publish to consumer under `npm start` (issue 43; docs/operations.md): the trace id
 * named to the producer at `POST …/events` (`traceresponse`) is on the consumer's `traceparent` for
 * every attempt, on the log lines of every function that handled the notification (publishEvent,
 * fanOut, deliver), and the local dashboard's path page shows its steps in Chromium.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseTraceparent } from '../../lib/tracing';
import { freePort } from '../../scripts/dynamodb-local';
import { type Consumer, startConsumer } from '../support/consumer';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { type NpmStart, startNpmStart } from '../support/npm-start';

const CHROMIUM = '/usr/bin/chromium';

let dir: string;
let service: NpmStart | undefined;
let dashboard: string;
let consumer: Consumer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-trace-'));
  // debug: npm start prints every line the functions log, as a developer following one would see.
  service = await startNpmStart(dir, await freePort(), { LOG_LEVEL: 'debug' });
  dashboard = /Local dashboard at (\S+)/.exec(service.output())?.[1] ?? '';
}, 160_000);

afterAll(async () => {
  await consumer?.close();
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${service?.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

type LogLine = Record<string, unknown> & { message: string; function_name?: string };

/** The JSON log lines npm start printed that name `traceId`. */
const linesOf = (traceId: string): LogLine[] =>
  (service?.output() ?? '')
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(traceId))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.traceId === traceId);

describe('npm start: one trace from POST …/events to the consumer', () => {
  it('names the trace to the producer, sends it to the consumer on each attempt, logs it in every function, and shows the path', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const address = `${node}/sync/ptp-status/lock-state`;
    // A first attempt that fails (retried at once, as Retry-After: 0 asks), then a delivery.
    consumer = await startConsumer([{ status: 503, headers: { 'retry-after': '0' } }, { status: 204 }]);
    const publisher = await call('POST', '/publishers', { ResourceAddress: address });
    expect(publisher.status).toBe(201);
    const subscription = await call('POST', '/subscriptions', {
      ResourceAddress: address,
      EndpointUri: consumer.url,
    });
    expect(subscription.status).toBe(201);

    const published = await call(
      'POST',
      `/publishers/${publisher.body.SubscriptionId}/events`,
      lockStateEvent({ node }),
    );
    expect(published.status).toBe(202);
    const traceId = parseTraceparent(published.headers.get('traceresponse') ?? undefined)?.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    if (!traceId) return;

    const attempts = await consumer.waitFor(2, 30_000);
    expect(attempts.map((attempt) => parseTraceparent(String(attempt.headers.traceparent))?.traceId)).toEqual(
      [traceId, traceId],
    );

    // Every function of its path logged it: the publish (each of that invocation's lines), the
    // fan-out, and each attempt with its outcome.
    await vi.waitFor(
      () => {
        const lines = linesOf(traceId);
        const functions = new Set(lines.map((line) => String(line.function_name).split('-').at(-1)));
        expect([...functions].sort()).toEqual(['deliver', 'fanOut', 'publishEvent']);
        expect(lines.filter((line) => line.message === 'delivery attempt')).toMatchObject([
          { outcome: 'retry', status: 503, attempt: 1, subscriptionId: subscription.body.SubscriptionId },
          { outcome: 'delivered', status: 204, attempt: 2, subscriptionId: subscription.body.SubscriptionId },
        ]);
      },
      { timeout: 20_000, interval: 250 },
    );
    const accepted = linesOf(traceId).find((line) => line.message === 'event accepted');
    const publishLines = (service?.output() ?? '')
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes(String(accepted?.function_request_id)))
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line._aws === undefined); // the metrics record of the invocation is no log line
    expect(publishLines.length).toBeGreaterThanOrEqual(2); // the outcome line (debug) and "event accepted"
    for (const line of publishLines) expect(line.traceId, JSON.stringify(line)).toBe(traceId);

    // The dashboard's path of the notification: its data, then its page in Chromium.
    const path = await (await fetch(`${dashboard}/notifications/${traceId}/data`)).json();
    const steps = (
      path as Array<{ function: string; message: string; details: Record<string, unknown> }>
    ).filter((step) => step.message !== 'request');
    // The first attempt is made by the fan-out that found the subscriber (docs/delivery.md,
    // "Delivered where fanned out"); the retry by deliver, from the delivery queue.
    expect(steps.map((step) => `${step.function}: ${step.message}`)).toEqual([
      'publishEvent: event accepted',
      'fanOut: delivery attempt',
      'fanOut: delivery attempt failed; retrying',
      'fanOut: event fanned out',
      'deliver: delivery attempt',
    ]);
    expect(steps[3]?.details).toMatchObject({ enqueued: 1 });

    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      expect((await page.goto(`${dashboard}/notifications/${traceId}`))?.status()).toBe(200);
      await page.waitForSelector('#steps tr:nth-child(5)', { timeout: 20_000 });
      const rows = await page.locator('#steps tr').allTextContents();
      expect(rows.find((row) => row.includes('event accepted'))).toContain('publishEvent');
      expect(rows.filter((row) => row.includes('delivery attempt') && !row.includes('retrying'))).toEqual([
        expect.stringContaining('retry · HTTP 503'),
        expect.stringContaining('delivered · HTTP 204'),
      ]);
      expect(await page.textContent('#title')).toBe(`Notification ${traceId}`);
      // The recent notifications link to it.
      await page.goto(`${dashboard}/notifications`);
      await page.waitForSelector(`a[href$="/notifications/${traceId}"]`, { timeout: 20_000 });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
