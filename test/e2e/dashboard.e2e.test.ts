/**
 * `npm start` as a developer runs it (node scripts/start-local.ts, its own DynamoDB Local, queue
 * and serverless offline), a scripted run of publishers, subscribers and consumers that deliver,
 * fail and refuse, then: the delivery status and dead-letter routes over HTTP, and the local
 * dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core), whose numbers
 * must be the status line's; then a site of 1,000 nodes under one subscription, whose row must
 * stay within a screen. The screenshot in docs/ is taken here (DOCS_SCREENSHOT=1 writes it there;
 * otherwise it goes to a temporary folder).
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
/** A full-HD screen: a subscription's row must fit in it, however many addresses it covers. */
const VIEWPORT = { width: 1400, height: 1080 };
const SCREENSHOT = process.env.DOCS_SCREENSHOT
  ? join(PROJECT_DIR, 'docs', 'local-dashboard.png')
  : join(tmpdir(), `local-dashboard-${process.pid}.png`);

let dir: string;
let service: NpmStart | undefined;
let origin: string;
let api: string;
const consumers: Array<Pick<Consumer, 'close'>> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-dashboard-'));
  const port = await freePort();
  service = await startNpmStart(dir, port, {
    // A consumer that keeps failing is given up on within seconds.
    DELIVERY_RETRY_WINDOW_SECONDS: '3',
    // A site of 1,000 nodes, each node its own publisher, as an operator raises the quota for one.
    PUBLISHERS_PER_PRODUCER: '2000',
  });
  api = service.url;
  // The dashboard's own server (PORT + 1 unless taken), which passes the page's API reads on.
  origin = new URL(/Local dashboard at (\S+)/.exec(service.output())?.[1] ?? '').origin;
}, 160_000);

afterAll(async () => {
  await Promise.all(consumers.map((consumer) => consumer.close()));
  await service?.stop();
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

/** `work` for each item, at most `PARALLEL` at once (offline runs each request as a function call). */
async function inParallel<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const PARALLEL = 16;
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

/**
 * A consumer on 127.0.0.1 that refuses the notifications for the `refused` addresses with a 400
 * (not retried: a dead letter at once) and takes the others; `received` lists each one's address.
 */
async function consumerRefusing(refused: ReadonlySet<string>) {
  const received: string[] = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const address = String(JSON.parse(body).data.values[0].ResourceAddress);
    received.push(address);
    res.writeHead(refused.has(address) ? 400 : 204).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  consumers.push({ close });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, received };
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
      const page = await browser.newPage({ viewport: VIEWPORT, locale: 'en-US' });
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
        const failingRow = page.locator(`tbody[data-subscription="${failingId}"]`);
        expect(await failingRow.locator('[data-failing-first]').textContent()).toContain(
          `${lockAddress}: it answered HTTP 503`,
        );
        expect(await failingRow.locator('[data-dead-letters]').textContent()).toBe('1');
        const refusingRow = page.locator(`tbody[data-subscription="${refusingId}"]`);
        expect(await refusingRow.locator('[data-newest]').textContent()).toContain(otherEvent.id);
        expect(await refusingRow.locator('[data-failing-first]').textContent()).toBe('–');
        expect(await refusingRow.locator('[data-dead-letters]').textContent()).toBe('0');
      });
      expect(await page.locator('#subscriptions > tbody').count()).toBe(3);
      // Nothing fetched from anywhere but npm start itself.
      expect(requested.filter((url) => !url.startsWith(origin))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);

  it('a site-level subscription over 1,000 nodes: its row stays within a screen, the failing addresses first, all of them one click away', async () => {
    const site = `/${uniqueCluster()}/site-1`;
    const nodes = Array.from({ length: 1000 }, (_, i) => `${site}/node-${String(i + 1).padStart(4, '0')}`);
    const addressOf = (node: string) => `${node}/sync/ptp-status/lock-state`;
    // Each node's lock state its own publisher, as a node agent registers one per address.
    const publishers = await inParallel(nodes, async (node) => {
      const response = await call('POST', '/publishers', { ResourceAddress: addressOf(node) });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.SubscriptionId as string;
    });
    // The site's consumer refuses three nodes' notifications (400, not retried: dead letters at
    // once), far down the address order, so that failing-first is not the address order.
    const failingNodes = [250, 500, 999];
    const failingAddresses = failingNodes.map((i) => addressOf(nodes[i] as string));
    const siteConsumer = await consumerRefusing(new Set(failingAddresses));
    const subscribed = await call('POST', '/subscriptions', {
      ResourceAddress: site,
      EndpointUri: siteConsumer.url,
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    const siteId = subscribed.body.SubscriptionId as string;
    const published = await inParallel(nodes, (node, i) =>
      call('POST', `/publishers/${publishers[i]}/events`, lockStateEvent({ node })),
    );
    for (const response of published) expect(response.status).toBe(202);
    await vi.waitFor(() => expect(new Set(siteConsumer.received).size).toBe(nodes.length), {
      timeout: 60_000,
      interval: 100,
    });

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const page = await browser.newPage({ viewport: VIEWPORT, locale: 'en-US' });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${origin}/_local/dashboard`);
      const row = page.locator(`tbody[data-subscription="${siteId}"]`);
      const covered = row.locator('[data-addresses]');
      await vi.waitFor(
        async () => {
          expect(await covered.getAttribute('data-addresses')).toBe('1000');
          expect(await covered.getAttribute('data-failing')).toBe('3');
          expect(await row.locator('[data-dead-letters]').textContent()).toBe('3');
        },
        { timeout: 30_000, interval: 250 },
      );
      const height = () => row.evaluate((body) => body.getBoundingClientRect().height);
      expect(await height()).toBeLessThanOrEqual(VIEWPORT.height);
      // The summary: how many, the newest delivery with its latency, the failing addresses, first.
      expect(await covered.innerText()).toBe('1,000\n3 failing');
      expect(await row.locator('[data-newest]').textContent()).toMatch(/at .*, \d+ ms$/);
      expect(
        await row
          .locator('[data-failing-first] [data-address]')
          .evaluateAll((spans) => spans.map((span) => span.getAttribute('data-address'))),
      ).toEqual(failingAddresses);
      expect(await row.locator('[data-failing-first]').textContent()).toContain(
        'it answered HTTP 400, which is not retried',
      );

      // One click away: every address, the failing ones first, then the others in address order,
      // in a box that keeps the row within the screen; it stays open as the page refreshes.
      await row.getByText('All 1,000 addresses, failing first').click();
      const listed = () =>
        row
          .locator('.address-list tbody [data-address]')
          .evaluateAll((spans) => spans.map((span) => span.getAttribute('data-address')));
      const othersInOrder = nodes.map(addressOf).filter((address) => !failingAddresses.includes(address));
      await vi.waitFor(async () => expect(await listed()).toEqual([...failingAddresses, ...othersInOrder]));
      expect(await height()).toBeLessThanOrEqual(VIEWPORT.height);
      const refreshed = Number(await page.getAttribute('body', 'data-refreshed'));
      await vi.waitFor(
        async () =>
          expect(Number(await page.getAttribute('body', 'data-refreshed'))).toBeGreaterThan(refreshed),
        { timeout: 20_000, interval: 250 },
      );
      expect(await listed()).toHaveLength(1000);

      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect((await stat(SCREENSHOT)).size).toBeGreaterThan(20_000);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
