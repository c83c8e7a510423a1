/**
 * `npm start` keeps what it accepted: the service is stopped — Ctrl-C (SIGINT to its process
 * group), then a SIGKILL of every process it runs — with a notification waiting for its retry and
 * a fan-out under way, started again on the same data, and every notification arrives, never an
 * older one after a newer one for the same subscription. `node scripts/start-local.ts` runs as a
 * user runs it, on its own data directory and port.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { lockStateEvent, uniqueCluster } from '../support/fixtures';
import { type NpmStart, startNpmStart } from '../support/npm-start';

/** Subscriptions the fan-out enqueues a delivery for: enough batches that a kill can land among them. */
const FAN_OUT_SUBSCRIPTIONS = 300;
/** The waiting notification's consumer asks for this: its retry is due after the restart. */
const RETRY_AFTER_SECONDS = 4;

type Service = NpmStart;

let dir: string;
let port: number;
let service: Service | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-restart-'));
  port = await freePort();
});

afterAll(async () => {
  if (service) await stop(service, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

function start(): Promise<Service> {
  return startNpmStart(dir, port);
}

/** Every process of the service: its own, and the groups of the children it detached. */
function processGroups(root: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const pids = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of table) {
      if (pid !== undefined && ppid !== undefined && pids.has(ppid) && !pids.has(pid)) {
        pids.add(pid);
        grew = true;
      }
    }
  }
  return [...new Set(table.filter(([pid]) => pids.has(pid ?? -1)).map(([, , pgid]) => pgid ?? root))];
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).startsWith('Z');
  } catch {
    return false;
  }
};

async function stop(target: Service, signal: 'SIGINT' | 'SIGKILL') {
  const pid = target.process.pid ?? 0;
  const exited = once(target.process, 'exit');
  if (signal === 'SIGINT') {
    process.kill(-pid, 'SIGINT'); // Ctrl-C: the terminal signals the foreground group
  } else {
    const groups = processGroups(pid);
    for (const group of groups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {}
    }
    await vi.waitFor(() => expect(groups.filter(alive)).toEqual([]), { timeout: 20_000, interval: 100 });
  }
  await exited;
  service = undefined;
}

/** A consumer whose answer the test decides, recording what it was sent and what it answered, per path. */
async function startConsumer() {
  const received: { path: string; id: string; time: string; status: number }[] = [];
  type Answer = { status: number; headers?: Record<string, string>; delayMs?: number };
  let answer = (_path: string): Answer => ({ status: 204 });
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      const reply = answer(path);
      try {
        const body = JSON.parse(raw) as { id?: string; time?: string };
        if (body.id && body.time) received.push({ path, id: body.id, time: body.time, status: reply.status });
      } catch {}
      setTimeout(() => res.writeHead(reply.status, reply.headers).end(), reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The events each path accepted (2xx), in the order they arrived. */
    accepted: (path: string) => received.filter((r) => r.path === path && r.status < 300),
    refused: (path: string) => received.filter((r) => r.path === path && r.status >= 300).length,
    answerWith: (next: (path: string) => Answer) => {
      answer = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function post(
  target: Service,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function queueCounts(target: Service) {
  const response = await fetch(`${target.queueUrl}/idle`);
  const { queues } = (await response.json()) as {
    queues: Record<'fan-out' | 'delivery', { total: number; visible: number }>;
  };
  return queues;
}

async function publisherAt(target: Service, address: string): Promise<string> {
  const created = await post(target, '/publishers', { ResourceAddress: address });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return (created.body as { SubscriptionId: string }).SubscriptionId;
}

async function subscribe(target: Service, address: string, endpointUri: string) {
  const subscribed = await post(target, '/subscriptions', {
    ResourceAddress: address,
    EndpointUri: endpointUri,
  });
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
}

it('delivers every accepted notification, in order per subscription, across a Ctrl-C and a SIGKILL', {
  timeout: 600_000,
}, async () => {
  const consumer = await startConsumer();
  try {
    service = await start();
    // Two nodes: one subscription whose consumer asks for a retry, and one node with many subscriptions.
    const retryNode = `/${uniqueCluster()}/site-1/node-1`;
    const fanOutNode = `/${uniqueCluster()}/site-1/node-1`;
    const retryPublisher = await publisherAt(service, `${retryNode}/sync/ptp-status/lock-state`);
    const fanOutPublisher = await publisherAt(service, `${fanOutNode}/sync/ptp-status/lock-state`);
    const waiting = '/waiting';
    await subscribe(service, retryNode, `${consumer.url}${waiting}`);
    const fanOutPaths = Array.from({ length: FAN_OUT_SUBSCRIPTIONS }, (_, i) => `/fan-out/${i}`);
    for (const path of fanOutPaths) await subscribe(service, fanOutNode, `${consumer.url}${path}`);

    for (const signal of ['SIGINT', 'SIGKILL'] as const) {
      const running = service ?? (await start());
      service = running;
      // The waiting subscription asks for a retry a few seconds away: its notification waits on the
      // queue. The others answer slowly, so that their deliveries stay on the queue (in flight)
      // while the fan-out enqueues the rest, and the queue's count shows how far it got.
      consumer.answerWith((path) =>
        path === waiting
          ? { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } }
          : { status: 204, delayMs: 1000 },
      );
      const retried = lockStateEvent({ node: retryNode });
      const refusedBefore = consumer.refused(waiting);
      expect((await post(running, `/publishers/${retryPublisher}/events`, retried)).status).toBe(202);
      await vi.waitFor(() => expect(consumer.refused(waiting)).toBeGreaterThan(refusedBefore), {
        timeout: 20_000,
        interval: 10,
      });

      // Publish to the many until a stop lands in the middle of a fan-out; an attempt that finished
      // too fast is delivered whole before the next one.
      const fannedOut: string[] = [];
      let halfway: Awaited<ReturnType<typeof queueCounts>> | undefined;
      for (let attempt = 0; attempt < 5 && !halfway; attempt++) {
        const event = lockStateEvent({ node: fanOutNode, value: attempt % 2 ? 'HOLDOVER' : 'FREERUN' });
        fannedOut.push(event.id);
        const publishing = post(running, `/publishers/${fanOutPublisher}/events`, event);
        const deadline = Date.now() + 10_000;
        while (!halfway && Date.now() < deadline) {
          const counts = await queueCounts(running);
          // The retry's message, plus some of this fan-out's deliveries but not all of them.
          const deliveries = counts.delivery.total - 1;
          if (counts['fan-out'].total > 0 && deliveries > 0 && deliveries < FAN_OUT_SUBSCRIPTIONS)
            halfway = counts;
          else if (counts['fan-out'].total === 0 && deliveries >= FAN_OUT_SUBSCRIPTIONS) break;
        }
        expect((await publishing).status).toBe(202);
        if (!halfway) {
          await vi.waitFor(
            () => {
              for (const path of fanOutPaths)
                expect(consumer.accepted(path).map((r) => r.id)).toContain(event.id);
            },
            { timeout: 60_000, interval: 100 },
          );
        }
      }
      expect(halfway, 'a stop in the middle of a fan-out').toBeDefined();
      await stop(running, signal);

      consumer.answerWith(() => ({ status: 204 }));
      service = await start();
      await vi.waitFor(
        () => {
          expect(consumer.accepted(waiting).map((r) => r.id)).toContain(retried.id);
          for (const path of fanOutPaths)
            expect(consumer.accepted(path).map((r) => r.id)).toEqual(expect.arrayContaining(fannedOut));
        },
        { timeout: 90_000, interval: 200 },
      );
    }

    // Per subscription: never an older event after a newer one (a repeat of the same one may come).
    for (const path of [waiting, ...fanOutPaths]) {
      const times = consumer.accepted(path).map((r) => Date.parse(r.time));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
  } finally {
    await consumer.close();
  }
});
