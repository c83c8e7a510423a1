/**
 * The backhaul cut (`npm run test:agent`; root, linuxptp): the agent serves its node's API
 * (`--serve`), a vDU-like consumer subscribes there and another in the region (`npm start`). With
 * the region stopped, the node's consumer still receives every transition of the real ptp4l, as it
 * happens; when the region returns it receives the backlog, in order, from the agent's outbox. The
 * node's consumer gets each event once: nothing comes back to it through the region.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_PATH } from '../../../lib/http/base-path';
import {
  daemonsMissing,
  freePort,
  notificationsAt,
  startAgent,
  startConsumer,
  startPtpPair,
  startService,
  subscribeToCluster,
  until,
} from '../../../scripts/agent-lab';

const missing = daemonsMissing(['ip', 'ptp4l', 'pmc']);
if (missing) console.warn(`Skipping the backhaul-cut test: ${missing}.`);

type Started<T extends (...args: never[]) => unknown> = Awaited<ReturnType<T>>;

const cluster = `cut-${randomUUID().slice(0, 8)}`;
const node = `/${cluster}/site-1/gm`;
const LOCK = `${node}/sync/ptp-status/lock-state`;
const CLOCK_CLASS = `${node}/sync/ptp-status/clock-class`;

describe.skipIf(missing)(
  "a vDU on the node hears its node's ptp4l with the backhaul cut",
  { timeout: 300_000 },
  () => {
    let dir: string;
    let service: Started<typeof startService>;
    let pair: Started<typeof startPtpPair>;
    let regional: Started<typeof startConsumer>;
    let local: Started<typeof startConsumer>;
    let agent: ReturnType<typeof startAgent>;
    let nodeApi: string;

    const evidence = () =>
      `the agent said:\n${agent?.output().slice(-4000)}\nnpm start said:\n${service?.output().slice(-2000)}`;
    const atNode = notificationsAt(() => local.received, evidence);
    const inRegion = notificationsAt(() => regional.received, evidence);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ocloud-cut-'));
      [service, pair, regional, local] = await Promise.all([
        startService(dir),
        startPtpPair(dir),
        startConsumer(),
        startConsumer(),
      ]);
      await subscribeToCluster(service.api, cluster, LOCK, regional.url);
      const port = await freePort();
      nodeApi = `http://127.0.0.1:${port}${BASE_PATH}`;
      agent = startAgent({
        service: service.base,
        node,
        ptp4l: pair.gmUds,
        stateDir: join(dir, 'agent'),
        args: ['--serve', `127.0.0.1:${port}`],
      });
      await until(
        () =>
          fetch(`${nodeApi}/health`).then(
            (answer) => (answer.ok ? true : undefined),
            () => undefined,
          ),
        () => `the node's API;\n${evidence()}`,
        60_000,
      );
      // The vDU: subscribed to its own node, on its node (an X-Consumer-Id of its own).
      const onTheNode = await fetch(`${nodeApi}/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-consumer-id': 'vdu-1' },
        body: JSON.stringify({ ResourceAddress: node, EndpointUri: local.url }),
      });
      expect(onTheNode.status, await onTheNode.clone().text()).toBe(201);
      await atNode.expectValues(LOCK, ['LOCKED']);
      await inRegion.expectValues(LOCK, ['LOCKED'], 60_000);
    }, 300_000);

    afterAll(async () => {
      await agent?.stop();
      await pair?.remove();
      await service?.stop();
      await Promise.all([regional?.close(), local?.close()]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('delivers every transition on the node while the region is down, then the backlog to the region in order', async () => {
      await service.stop();
      const sent: [string, string][] = [
        ['7', 'HOLDOVER'],
        ['248', 'FREERUN'],
        ['6', 'LOCKED'],
      ];
      try {
        for (const [clockClass, lock] of sent) {
          await pair.setClockClass(Number(clockClass));
          // The node's subscriber hears each state while the region cannot be reached.
          await until(
            () =>
              atNode.valuesAt(LOCK).at(-1) === lock && atNode.valuesAt(CLOCK_CLASS).at(-1) === clockClass
                ? true
                : undefined,
            () =>
              `the node's consumer to hear ${lock} / class ${clockClass} (has ${atNode.valuesAt(LOCK).join(' → ')});\n${evidence()}`,
            30_000,
          );
        }
        expect(atNode.valuesAt(LOCK)).toEqual(['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
        expect(atNode.valuesAt(CLOCK_CLASS)).toEqual(['6', '7', '248', '6']);
        const health = await fetch(`${nodeApi}/health`, { headers: { accept: 'application/json' } });
        const status = (await health.json()) as { region: { reachable: boolean }; outbox: { depth: number } };
        expect(status.region.reachable).toBe(false);
        expect(status.outbox.depth).toBeGreaterThanOrEqual(sent.length);
      } finally {
        await service.start();
      }
      // The region receives the backlog: the newest last, each address's events in their order (an
      // older one may be superseded by a newer one delivered first, never sent after it).
      await inRegion
        .expectValues(LOCK, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED'], 120_000)
        .catch(async () => {
          await until(
            () =>
              inRegion.valuesAt(LOCK).at(-1) === 'LOCKED' && inRegion.valuesAt(LOCK).length > 1
                ? true
                : undefined,
            () => `the region's backlog (has ${inRegion.valuesAt(LOCK).join(' → ')});\n${evidence()}`,
            60_000,
          );
        });
      const arrived = inRegion.valuesAt(LOCK).slice(1);
      let next = 0;
      for (const value of arrived) {
        next = ['HOLDOVER', 'FREERUN', 'LOCKED'].indexOf(value, next) + 1;
        expect(next, arrived.join(' → ')).toBeGreaterThan(0);
      }
      // Each event once on the node: the region sends the node's consumer nothing.
      const ids = local.received.map((notification) => notification.event.id);
      expect(new Set(ids).size).toBe(ids.length);
    }, 300_000);
  },
);
