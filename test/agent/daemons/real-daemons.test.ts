/**
 * The node agent against the real daemons (`npm run test:agent`; root, linuxptp, gpsd): ptp4l as a
 * grandmaster and as a follower in two network namespaces of the test's own (scripts/agent-lab.ts),
 * gpsd fed by gpsfake from NMEA logs written here, `npm start`, and a consumer subscribed through
 * the service. Each case ends at that consumer: the notifications arrive signed, in order, with
 * string values. Skipped, with the reason, where the daemons or root are missing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  daemonsMissing,
  freePort,
  nmeaLog,
  notificationsAt,
  startAgent,
  startConsumer,
  startGpsfake,
  startPtpPair,
  startService,
  subscribeToCluster,
  until,
} from '../../../scripts/agent-lab';

const missing = daemonsMissing();
if (missing) console.warn(`Skipping the node agent's real-daemon tests: ${missing}.`);

type Started<T extends (...args: never[]) => unknown> = Awaited<ReturnType<T>>;
interface Value {
  ResourceAddress: string;
  data_type: string;
  value_type: string;
  value: unknown;
}
interface Event {
  id: string;
  source: string;
  type: string;
  time: string;
  data: { values: Value[] };
}

const cluster = `agent-${randomUUID().slice(0, 8)}`;
const gmNode = `/${cluster}/site-1/gm`;
const followerNode = `/${cluster}/site-1/follower`;
const gnssNode = `/${cluster}/site-1/gnss`;
const LOCK = '/sync/ptp-status/lock-state';
const CLOCK_CLASS = '/sync/ptp-status/clock-class';
const GNSS = '/sync/gnss-status/gnss-sync-status';
const SYNC = '/sync/sync-status/sync-state';

describe.skipIf(missing)('the node agent against real ptp4l and gpsd', { timeout: 240_000 }, () => {
  let dir: string;
  let service: Started<typeof startService>;
  let consumer: Started<typeof startConsumer>;
  let pair: Started<typeof startPtpPair>;
  let secret: string;
  const agents: ReturnType<typeof startAgent>[] = [];
  const gpsfakes: ReturnType<typeof startGpsfake>[] = [];
  const gpsfake = (log: string, port: number) => {
    const started = startGpsfake(log, port);
    gpsfakes.push(started);
    return started;
  };

  const agent = (options: Omit<Parameters<typeof startAgent>[0], 'service'>) => {
    const started = startAgent({ service: service.base, ...options });
    agents.push(started);
    return started;
  };

  /** Each event the consumer got for `address`, once (a repeat has the same id), in arrival order. */
  /** What the agents and npm start said last: a time-out's message carries it, to show the cause. */
  const evidence = () =>
    `the agents said:\n${agents.map((a) => `(exit ${a.process.exitCode ?? a.process.signalCode ?? 'not yet'})\n${a.output().slice(-3000)}`).join('\n---\n')}\nnpm start said:\n${service.output().slice(-3000)}`;
  const { eventsAt, valuesAt, expectValues } = notificationsAt(() => consumer.received, evidence);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocloud-agent-'));
    [service, consumer, pair] = await Promise.all([startService(dir), startConsumer(), startPtpPair(dir)]);
    // The consumer subscribes before any agent starts, so that it sees every state from the first
    // (a subscription needs a publisher under its address: one is registered here, and the agent
    // finds it through its 409).
    secret = await subscribeToCluster(service.api, cluster, `${gmNode}${LOCK}`, consumer.url);
    agent({ node: gmNode, ptp4l: pair.gmUds, stateDir: join(dir, 'agent-gm') });
    // Software time stamps over a veth pair: offsets of a few microseconds.
    agent({
      node: followerNode,
      ptp4l: pair.followerUds,
      stateDir: join(dir, 'agent-follower'),
      args: ['--max-offset-ns', '1000000'],
    });
  }, 300_000);

  afterAll(async () => {
    await Promise.all([...agents, ...gpsfakes].map((child) => child.stop()));
    await pair?.remove();
    await service?.stop();
    await consumer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs ptp4l only in its own namespaces, and the follower never adjusts a clock', () => {
    expect(pair.followerConfigText).toMatch(/^free_running 1$/m);
    expect(pair.followerConfigText).toMatch(/^slaveOnly 1$/m);
    // The interfaces ptp4l runs on exist only inside the test's namespaces.
    const hostLinks = readdirSync('/sys/class/net');
    expect(pair.interfaces).toHaveLength(2);
    for (const name of pair.interfaces) expect(hostLinks).not.toContain(name);
  });

  it('publishes each state at start: the grandmaster and its follower LOCKED, clock class 6', async () => {
    for (const node of [gmNode, followerNode]) {
      await expectValues(`${node}${LOCK}`, ['LOCKED']);
      await expectValues(`${node}${CLOCK_CLASS}`, ['6']);
      await expectValues(`${node}${SYNC}`, ['LOCKED']);
    }
  });

  it('follows the clock class as a GNSS loss drives it, 6 → 7 → 248 → 6, on both clocks', async () => {
    for (const clockClass of [7, 248, 6]) {
      await pair.setClockClass(clockClass);
      const lock = { 7: 'HOLDOVER', 248: 'FREERUN', 6: 'LOCKED' }[clockClass] ?? '';
      for (const node of [gmNode, followerNode]) {
        await until(
          () => (valuesAt(`${node}${CLOCK_CLASS}`).at(-1) === String(clockClass) ? true : undefined),
          `${node} clock class ${clockClass}`,
        );
        await until(() => (valuesAt(`${node}${LOCK}`).at(-1) === lock ? true : undefined), `${node} ${lock}`);
      }
    }
    for (const node of [gmNode, followerNode]) {
      await expectValues(`${node}${SYNC}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
      expect(valuesAt(`${node}${CLOCK_CLASS}`)).toEqual(['6', '7', '248', '6']);
      expect(valuesAt(`${node}${LOCK}`)).toEqual(['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
    }
  });

  it('reports a stopped grandmaster (FREERUN, clock class 248) and follows it again when it is back', async () => {
    await pair.stopGm();
    try {
      await expectValues(`${gmNode}${LOCK}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN']);
      await expectValues(`${gmNode}${CLOCK_CLASS}`, ['6', '7', '248', '6', '248']);
      // The follower loses its grandmaster once the announce receipt time-out has passed.
      await expectValues(`${followerNode}${LOCK}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN']);
    } finally {
      await pair.startGm();
    }
    await expectValues(`${gmNode}${LOCK}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN', 'LOCKED']);
    await expectValues(`${gmNode}${CLOCK_CLASS}`, ['6', '7', '248', '6', '248', '6']);
    await expectValues(
      `${followerNode}${LOCK}`,
      ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN', 'LOCKED'],
      60_000,
    );
    // Without a grandmaster the slave-only follower has only its own class, 255.
    await expectValues(`${followerNode}${CLOCK_CLASS}`, ['6', '7', '248', '6', '255', '6']);
    const gmLog = agents[0]?.output() ?? '';
    expect(gmLog).toMatch(/lock-state LOCKED -> FREERUN \(ptp4l lost: /);
  });

  it('keeps events on disk through a service outage and sends them in order when it is back', async () => {
    const before = valuesAt(`${gmNode}${LOCK}`);
    const classesBefore = valuesAt(`${gmNode}${CLOCK_CLASS}`);
    const gmAgent = agents[0];
    const logged = (pattern: RegExp) => (gmAgent?.output() ?? '').split(pattern).length - 1;
    const holdovers = logged(/sync-state LOCKED -> HOLDOVER/g);
    const relocks = logged(/sync-state HOLDOVER -> LOCKED/g);
    await service.stop();
    let down = true;
    let newestClass: Event | undefined;
    let keptEvents: { event: Event }[] = [];
    try {
      await pair.setClockClass(7);
      // Each change seen before the next is made (the agent reads ptp4l every 200 ms).
      await until(
        () => (logged(/sync-state LOCKED -> HOLDOVER/g) > holdovers ? true : undefined),
        'holdover',
      );
      await pair.setClockClass(6);
      await until(
        () => (logged(/sync-state HOLDOVER -> LOCKED/g) > relocks ? true : undefined),
        'the change back',
      );
      await until(
        () =>
          /unreachable .*keeping \d+ event\(s\) on disk/.test(gmAgent?.output() ?? '') ? true : undefined,
        'the agent to notice the outage',
      );
      const outbox = readdirSync(join(dir, 'agent-gm')).find((name) => name.endsWith('.json')) ?? '';
      const kept = JSON.parse(readFileSync(join(dir, 'agent-gm', outbox), 'utf8')) as { event: Event }[];
      expect(kept.map(({ event }) => `${event.source} ${event.data.values[0]?.value}`)).toEqual([
        `${LOCK} HOLDOVER`,
        `${CLOCK_CLASS} 7`,
        `${SYNC} HOLDOVER`,
        `${LOCK} LOCKED`,
        `${CLOCK_CLASS} 6`,
        `${SYNC} LOCKED`,
      ]);
      newestClass = kept.findLast(({ event }) => event.source === CLOCK_CLASS)?.event;
      keptEvents = kept;
      await service.start();
      down = false;
    } finally {
      if (down) await service.start();
    }
    // The service took them in order: its current state is the newest kept one (its id: the 6
    // from before the outage is current too after a restart, so the value alone proves nothing).
    await until(
      async () => {
        const answer = await fetch(`${service.api}${gmNode}${CLOCK_CLASS}/CurrentState`).catch(
          () => undefined,
        );
        const current = answer?.ok ? ((await answer.json()) as Event) : undefined;
        return newestClass && current?.id === newestClass.id ? true : undefined;
      },
      () => `the service to hold the kept clock class 6 (${newestClass?.id});\n${evidence()}`,
      60_000,
    );
    // Each address's kept events reach the consumer in order, never older after newer
    // (docs/delivery.md): the two of an address were published 0.2 s apart to a just restarted
    // npm start, so when the newer one's attempt takes the lease first the older is superseded and
    // never sent. A just restarted npm start can take a while to deliver on a busy machine.
    const arrivedInOrder = async (address: string, earlier: string[], sent: string[]) => {
      const newest = keptEvents.findLast(({ event }) => event.source === address.slice(gmNode.length));
      await until(
        () => (eventsAt(address).some((event) => event.id === newest?.event.id) ? true : undefined),
        () => `${address}: the newest kept event (${newest?.event.id});\n${evidence()}`,
        90_000,
      );
      const after = valuesAt(address).slice(earlier.length);
      expect(valuesAt(address).slice(0, earlier.length)).toEqual(earlier);
      // What arrived is what was sent, in its order, with the newest last (an older one may be missing).
      expect(after.at(-1), after.join(' → ')).toBe(sent.at(-1));
      let next = 0;
      for (const value of after) {
        next = sent.indexOf(value, next) + 1;
        expect(next, `${address}: ${after.join(' → ')}`).toBeGreaterThan(0);
      }
    };
    await arrivedInOrder(`${gmNode}${LOCK}`, before, ['HOLDOVER', 'LOCKED']);
    await arrivedInOrder(`${gmNode}${CLOCK_CLASS}`, classesBefore, ['7', '6']);
    await until(
      () => (/answers again/.test(gmAgent?.output() ?? '') ? true : undefined),
      'the agent to say so',
    );
  }, 360_000);

  it('republishes the current state when the agent restarts', async () => {
    const before = eventsAt(`${gmNode}${LOCK}`);
    await agents[0]?.stop();
    agent({ node: gmNode, ptp4l: pair.gmUds, stateDir: join(dir, 'agent-gm') });
    await until(
      () => (eventsAt(`${gmNode}${LOCK}`).length > before.length ? true : undefined),
      'the republished state',
    );
    const republished = eventsAt(`${gmNode}${LOCK}`).at(-1);
    expect(republished?.data.values[0]?.value).toBe('LOCKED');
    expect(republished?.id).not.toBe(before.at(-1)?.id);
  });

  it('follows gpsd: no gpsd, 2D fix, 3D fix, loss of fix, gpsd back with a fix, its receiver removed', async () => {
    const port = await freePort();
    const gnssAgent = agent({ node: gnssNode, gpsd: `127.0.0.1:${port}`, stateDir: join(dir, 'agent-gnss') });
    await until(
      () => (/^node agent for /m.test(gnssAgent.output()) ? true : undefined),
      'the agent to start',
    );
    await expectValues(`${gnssNode}${GNSS}`, ['FAILURE-NOFIX']);

    const first = join(dir, 'first.nmea');
    // gpsd reads the receiver once a client watches: the log starts with what the agent already
    // reports (no fix), so that what it must see comes after it is watching.
    writeFileSync(
      first,
      nmeaLog([
        [1, 4],
        [2, 3],
        [3, 4],
        [1, 4],
      ]),
    );
    const firstRun = gpsfake(first, port);
    await expectValues(`${gnssNode}${GNSS}`, [
      'FAILURE-NOFIX',
      'ACQUIRING-SYNC',
      'SYNCHRONIZED',
      'FAILURE-NOFIX',
    ]);
    // The log ends; gpsfake removes the receiver and its gpsd goes.
    await firstRun.stop();

    // A receiver that goes while it has a fix: its removal (or gpsd's end) is the loss.
    const second = join(dir, 'second.nmea');
    writeFileSync(
      second,
      nmeaLog([
        [1, 4],
        [3, 6],
      ]),
    );
    const secondRun = gpsfake(second, port);
    try {
      await expectValues(`${gnssNode}${GNSS}`, [
        'FAILURE-NOFIX',
        'ACQUIRING-SYNC',
        'SYNCHRONIZED',
        'FAILURE-NOFIX',
        'SYNCHRONIZED',
        'FAILURE-NOFIX',
      ]);
    } finally {
      await secondRun.stop();
    }
    expect(gnssAgent.output()).toMatch(
      /gnss-sync-status SYNCHRONIZED -> FAILURE-NOFIX \((receiver \S+ removed|gpsd at \S+ closed)\)/,
    );
    // gpsd alone: its fix is the node's sync-state.
    await expectValues(`${gnssNode}${SYNC}`, ['FREERUN', 'LOCKED', 'FREERUN', 'LOCKED', 'FREERUN']);
  });

  it('delivered every notification signed, in time order per address, with string values', () => {
    expect(consumer.received.length).toBeGreaterThan(30);
    const webhook = new Webhook(secret);
    const lastTime = new Map<string, string>();
    for (const { raw, headers, event } of consumer.received) {
      expect(() =>
        webhook.verify(raw, {
          'webhook-id': String(headers['webhook-id']),
          'webhook-timestamp': String(headers['webhook-timestamp']),
          'webhook-signature': String(headers['webhook-signature']),
        }),
      ).not.toThrow();
      for (const value of (event as Event).data.values) {
        expect(typeof value.value, JSON.stringify(value)).toBe('string');
        if (value.value_type === 'decimal64.3') expect(value.value).toMatch(/^-?\d+(\.\d{1,3})?$/);
        if (value.value_type === 'metric') expect(value.value).toMatch(/^\d+$/);
      }
      const address = (event as Event).data.values[0]?.ResourceAddress ?? '';
      const previous = lastTime.get(address);
      if (previous) expect(Date.parse((event as Event).time)).toBeGreaterThanOrEqual(Date.parse(previous));
      lastTime.set(address, (event as Event).time);
      expect(Date.parse((event as Event).time)).toBeLessThanOrEqual(Date.now());
    }
  });
});
