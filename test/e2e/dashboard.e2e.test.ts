/**
 * `npm start` as a developer runs it (node scripts/start-local.ts, its own DynamoDB Local, queue
 * and serverless offline), a scripted run of publishers, subscribers and consumers that deliver,
 * fail and refuse, then: the delivery status and dead-letter routes over HTTP, and the local
 * dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core), whose numbers
 * must be the status line's. The screenshot in docs/ is taken here (DOCS_SCREENSHOT=1 writes it
 * there; otherwise it goes to a temporary folder).
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { type Consumer, startConsumer } from '../support/consumer';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { type NpmStart, startNpmStart } from '../support/npm-start';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const SCREENSHOT = process.env.DOCS_SCREENSHOT
  ? join(PROJECT_DIR, 'docs', 'local-dashboard.png')
  : join(tmpdir(), `local-dashboard-${process.pid}.png`);

let dir: string;
let service: NpmStart | undefined;
let origin: string;
let api: string;
const consumers: Consumer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-dashboard-'));
  const port = await freePort();
  service = await startNpmStart(dir, port, {
    // A consumer that keeps failing is given up on within seconds.
    DELIVERY_RETRY_WINDOW_SECONDS: '3',
  });
  api = service.url;
  // The dashboard's own server (PORT + 1 unless taken), which passes the page's API reads on.
  origin = new URL(/Local dashboard at (\S+)/.exec(service.output())?.[1] ?? '').origin;
}, 160_000);

afterAll(async () => {
  await Promise.all(consumers.map((consumer) => consumer.close()));
  const child = service?.process;
  if (child?.pid && child.exitCode === null) {
    const exited = once(child, 'exit');
    process.kill(-child.pid, 'SIGINT');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function consumer(replies?: Parameters<typeof startConsumer>[0]) {
  const started = await startConsumer(replies);
  consumers.push(started);
  return started;
}

/** The numbers of the last status line npm start printed. */
function statusLine() {
  const lines = (service?.output() ?? '')
    .split('\n')
    .filter((line) => /^\[\d\d:\d\d:\d\d\] subscriptions /.test(line));
  const last = lines.at(-1) ?? '';
  const number = (label: string) => Number(new RegExp(`${label} (\\d+)`).exec(last)?.[1] ?? Number.NaN);
  return {
    ActiveSubscriptions: number('subscriptions'),
    ActivePublishers: number('publishers'),
    EventsPublished: number('events published'),
    NotificationsDelivered: number('delivered'),
    NotificationDeliveryFailures: number('failed attempts'),
    NotificationsDeadLettered: number('dead-lettered'),
  };
}

describe('npm start: delivery status, dead letters and the local dashboard', () => {
  it('a scripted run shows in the routes, and the dashboard in Chromium shows the status line’s numbers', async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const lockAddress = `${node}/sync/ptp-status/lock-state`;
    const otherNode = `/${uniqueCluster()}/site-1/node-2`;
    const otherAddress = `${otherNode}/sync/ptp-status/lock-state`;
    const good = await consumer([{ status: 204 }]);
    const failing = await consumer([{ status: 503 }]);
    const refusing = await consumer([{ status: 400 }, { status: 204 }]);

    const lock = (await call('POST', '/publishers', { ResourceAddress: lockAddress })).body.SubscriptionId;
    const other = (await call('POST', '/publishers', { ResourceAddress: otherAddress })).body.SubscriptionId;
    const subscribe = async (address: string, endpoint: string) => {
      const response = await call('POST', '/subscriptions', {
        ResourceAddress: address,
        EndpointUri: endpoint,
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.SubscriptionId as string;
    };
    await subscribe(lockAddress, good.url);
    const failingId = await subscribe(lockAddress, failing.url);
    const refusingId = await subscribe(otherAddress, refusing.url);
    const lockEvent = lockStateEvent({ node, value: 'HOLDOVER' });
    const otherEvent = lockStateEvent({ node: otherNode, value: 'FREERUN' });
    expect((await call('POST', `/publishers/${lock}/events`, lockEvent)).status).toBe(202);
    expect((await call('POST', `/publishers/${other}/events`, otherEvent)).status).toBe(202);

    // The failing consumer's reason, while it is retried and once given up on.
    await vi.waitFor(
      async () => {
        const [status] = (await call('GET', `/subscriptions/${failingId}/deliveries`)).body;
        expect(status).toMatchObject({
          ResourceAddress: lockAddress,
          LastFailure: { Reason: 'it answered HTTP 503' },
        });
      },
      { timeout: 20_000, interval: 250 },
    );
    await vi.waitFor(
      async () =>
        expect((await call('GET', `/subscriptions/${failingId}/dead-letters`)).body).toHaveLength(1),
      { timeout: 30_000, interval: 250 },
    );
    // A refused notification is a dead letter at once; redriven, it is delivered.
    await vi.waitFor(
      async () => {
        const letters = (await call('GET', `/subscriptions/${refusingId}/dead-letters`)).body;
        expect(letters).toMatchObject([
          {
            ResourceAddress: otherAddress,
            Event: otherEvent,
            Reason: 'it answered HTTP 400, which is not retried',
          },
        ]);
      },
      { timeout: 20_000, interval: 250 },
    );
    const redriven = await call('POST', `/subscriptions/${refusingId}/dead-letters/redrive`);
    expect(redriven.body).toMatchObject({ Redriven: [{ Id: otherEvent.id }], Dropped: [], More: false });
    await refusing.waitFor(2, 20_000);
    expect(refusing.received.map((r) => r.body)).toEqual([otherEvent, otherEvent]);
    await good.waitFor(1, 20_000);

    // The status line once it has counted all of that (it prints every 5 s when something changed).
    await vi.waitFor(
      () =>
        expect(statusLine()).toMatchObject({
          ActiveSubscriptions: 3,
          ActivePublishers: 2,
          EventsPublished: 2,
          NotificationsDelivered: 2,
          NotificationDeliveryFailures: failing.received.length + 1,
          NotificationsDeadLettered: 2,
        }),
      { timeout: 30_000, interval: 250 },
    );
    const status = statusLine();

    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const response = await page.goto(`${origin}/_local/dashboard`);
      expect(response?.status()).toBe(200);
      await page.waitForSelector('.uplot', { timeout: 20_000 });
      const shown = async () =>
        Object.fromEntries(
          await Promise.all(
            Object.keys(status).map(async (metric) => [
              metric,
              Number(await page.textContent(`[data-metric="${metric}"]`)),
            ]),
          ),
        );
      await vi.waitFor(async () => expect(await shown()).toEqual(status), { timeout: 20_000, interval: 500 });
      // Five widgets of the CloudWatch dashboard, drawn; the latency percentiles are known.
      expect(await page.locator('.widget h2').allTextContents()).toEqual([
        'Active subscriptions and publishers',
        'Events published per minute',
        'Notifications per minute',
        'Delivery latency (ms, acceptance to 2xx)',
        'Refusals and suspended endpoints per minute (docs/security.md)',
      ]);
      expect(await page.locator('.widget canvas').count()).toBe(5);
      for (const stat of ['p50', 'p99'])
        expect(
          Number(await page.textContent(`[data-metric="DeliveryLatency"][data-stat="${stat}"]`)),
        ).toBeGreaterThan(0);
      // The subscriptions table: the failing one's reason and dead letter, the redriven one's delivery.
      await vi.waitFor(async () => {
        const failingRow = page.locator(`tr[data-subscription="${failingId}"]`);
        expect(await failingRow.textContent()).toContain('it answered HTTP 503');
        expect(await failingRow.locator('[data-dead-letters]').textContent()).toBe('1');
        const refusingRow = page.locator(`tr[data-subscription="${refusingId}"]`);
        expect(await refusingRow.textContent()).toContain(otherEvent.id);
        expect(await refusingRow.locator('[data-dead-letters]').textContent()).toBe('0');
      });
      expect(await page.locator('#subscriptions tr').count()).toBe(3);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect((await stat(SCREENSHOT)).size).toBeGreaterThan(20_000);
      // Nothing fetched from anywhere but npm start itself.
      expect(requested.filter((url) => !url.startsWith(origin))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
