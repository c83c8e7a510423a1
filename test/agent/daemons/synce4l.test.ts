/**
 * The node agent's SyncE against two live synce4l (`npm run test:agent`; root, ip, make, gcc,
 * libnl): synce4l built from third_party/synce4l by the test's set-up, a source and a follower in
 * two network namespaces of the test's own exchanging real ESMC frames (synce-lab.ts), `npm start`,
 * the agent following the follower's log and control socket, and a consumer subscribed through
 * the service. Cases: lock; a QL change at the source; link loss (QL not received, holdover) and
 * back; the EEC in FREERUN; synce4l killed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  daemonsMissing,
  notificationsAt,
  startAgent,
  startConsumer,
  startService,
  subscribeToCluster,
  until,
} from '../../../scripts/agent-lab';
import { buildSynce4l, EEC, startSyncePair } from './synce-lab';

const buildDir = mkdtempSync(join(tmpdir(), 'ocloud-synce4l-build-'));
const built = daemonsMissing(['ip']) ? undefined : buildSynce4l(buildDir);
const missing = daemonsMissing(['ip']) ?? (built && 'missing' in built ? built.missing : undefined);
if (missing) console.warn(`Skipping the node agent's synce4l tests: ${missing}.`);

type Started<T extends (...args: never[]) => unknown> = Awaited<ReturnType<T>>;

const cluster = `synce-${randomUUID().slice(0, 8)}`;
const node = `/${cluster}/site-1/t-bc`;
const LOCK = `${node}/synce1/sync/synce-status/lock-state`;
const QUALITY = `${node}/synce1/sync/synce-status/clock-quality`;

describe.skipIf(missing)('the node agent against two live synce4l', { timeout: 240_000 }, () => {
  let dir: string;
  let service: Started<typeof startService>;
  let consumer: Started<typeof startConsumer>;
  let synce: Started<typeof startSyncePair>;
  let secret: string;
  const agents: ReturnType<typeof startAgent>[] = [];
  const agent = (name: string) => {
    const started = startAgent({
      service: service.base,
      node,
      stateDir: join(dir, `agent-${name}`),
      args: ['--synce4l', synce.follower.log, '--synce4l-socket', synce.follower.socket],
    });
    agents.push(started);
    return started;
  };
  const evidence = () =>
    `the agents said:\n${agents.map((a) => a.output().slice(-2500)).join('\n---\n')}\n` +
    `the follower synce4l said:\n${synce ? readFileSync(synce.follower.log, 'utf8').slice(-4000) : '(not started)'}`;
  const { eventsAt, valuesAt, expectValues } = notificationsAt(() => consumer.received, evidence);
  const lockStates: string[] = [];
  const qualities: string[] = [];
  const quality = (address: string) =>
    eventsAt(address).map((event) => event.data.values.map((value) => String(value.value)).join('/'));
  const expectQualities = async (expected: string[]) => {
    await until(
      () => (JSON.stringify(quality(QUALITY)) === JSON.stringify(expected) ? true : undefined),
      () => `${QUALITY} to be ${expected.join(' → ')} (is ${quality(QUALITY).join(' → ')});\n${evidence()}`,
      40_000,
    );
  };
  /**
   * Waits until the consumer has had no SyncE notification for 2 s (synce4l re-electing its source
   * after a link comes back can take the EEC through HOLDOVER and back a moment after the previous
   * scenario saw LOCKED), then takes what it has as the start of the next scenario's expectations,
   * so that each scenario is judged by its own transitions.
   */
  const settled = async () => {
    const synceCount = () => eventsAt(LOCK).length + eventsAt(QUALITY).length;
    let seen = -1;
    await until(
      async () => {
        if (synceCount() === seen) return true;
        seen = synceCount();
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return undefined;
      },
      () => `the follower's SyncE notifications to settle;\n${evidence()}`,
      40_000,
    );
    lockStates.splice(0, lockStates.length, ...valuesAt(LOCK));
    qualities.splice(0, qualities.length, ...quality(QUALITY));
  };
  const next = async (state?: string, ql?: string) => {
    if (state) {
      lockStates.push(state);
      await expectValues(LOCK, lockStates, 40_000);
    }
    if (ql) {
      qualities.push(ql);
      await expectQualities(qualities);
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocloud-synce4l-'));
    [service, consumer] = await Promise.all([startService(dir), startConsumer()]);
    // A subscription needs a publisher under its address: the one the agent registers too (409 then).
    secret = await subscribeToCluster(
      service.api,
      cluster,
      `${node}/sync/synce-status/lock-state`,
      consumer.url,
    );
  }, 300_000);

  afterAll(async () => {
    await Promise.all(agents.map((child) => child.stop()));
    await synce?.remove();
    await service?.stop();
    await consumer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    rmSync(buildDir, { recursive: true, force: true });
  }, 60_000);

  it('lock: FREERUN and DNU at start, then LOCKED with the source PRTC quality over real ESMC', async () => {
    // The pair starts here, so that the agent sees the follower before it locks (~11 s).
    synce = await startSyncePair(dir, built && 'binary' in built ? built.binary : '');
    agent('first');
    // DNU: 0xf, and no extended QL, 0xff.
    await next('FREERUN', '15/255');
    await next('LOCKED', '2/32');
    await synce.logged(synce.follower, /act on EEC_LOCKED\/EEC_LOCKED_HO_ACQ for /, 'the follower to lock');
    // A restarted agent publishes the current state at its start, from synce4l's log and socket.
    const before = consumer.received.length;
    await agents[0]?.stop();
    const second = agent('second');
    await next('LOCKED', '2/32');
    expect(second.output()).toContain(`${LOCK} (start) -> LOCKED (synce4l before the agent started)`);
    expect(second.output()).toContain(`${QUALITY} (start) -> 0x2/0x20`);
    expect(consumer.received.length).toBeGreaterThan(before);
  });

  it('runs synce4l only in its own namespaces, without SyncE hardware (EEC state from a file)', () => {
    const hostLinks = readdirSync('/sys/class/net');
    for (const name of synce.interfaces) expect(hostLinks).not.toContain(name);
    expect(synce.configText).toMatch(/^eec_get_state_cmd cat \S+synce-b\.eec$/m);
    expect(synce.configText).not.toMatch(/^(module_name|clock_id)\s/m);
  });

  it('a QL change at the source: the follower receives SSU-A and reports it', async () => {
    await settled();
    await synce.setSourceQuality(0x4, 0xff);
    await next(undefined, '4/255');
    await synce.setSourceQuality(0x2, 0x20);
    await next(undefined, '2/32');
    expect(valuesAt(LOCK).at(-1)).toBe('LOCKED');
  });

  it('link loss: QL not received, HOLDOVER and DNU; back: LOCKED again after recover_time', async () => {
    await settled();
    synce.setLink(false);
    await next('HOLDOVER', '15/255');
    await synce.logged(synce.follower, /QL not received on \S+ within 5 s/, 'the follower to miss its QL');
    synce.setLink(true);
    await next('LOCKED', '2/32');
  });

  it('the EEC in FREERUN, then LOCKED again', async () => {
    await settled();
    synce.setFollowerEec(EEC.FREERUN);
    await next('FREERUN', '15/255');
    synce.setFollowerEec(EEC.LOCKED);
    await next('LOCKED', '2/32');
  });

  it('synce4l killed: FREERUN and DNU, named in the log; started again: LOCKED', async () => {
    await settled();
    await synce.killFollower();
    await next('FREERUN', '15/255');
    expect(agents.at(-1)?.output()).toContain(`synce4l at ${synce.follower.socket} does not answer`);
    synce.setFollowerEec(EEC.FREERUN);
    synce.startFollower();
    await next('LOCKED', '2/32');
  });

  it('delivered every notification signed, in time order per address, with string values', () => {
    const webhook = new Webhook(secret);
    const mine = consumer.received.filter((r) => r.event.source?.startsWith('/sync/synce-status/'));
    expect(mine.length).toBeGreaterThan(10);
    for (const { raw, headers } of mine) {
      webhook.verify(raw, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      });
    }
    for (const address of [LOCK, QUALITY]) {
      const times = eventsAt(address).map((event) => event.time);
      expect(times).toEqual([...times].sort());
      for (const event of eventsAt(address)) {
        for (const value of event.data.values) expect(typeof value.value).toBe('string');
      }
    }
    expect(eventsAt(LOCK)[0]?.type).toBe('event.sync.synce-status.synce-state-change');
    expect(eventsAt(QUALITY)[0]?.type).toBe('event.sync.synce-status.synce-clock-quality-change');
  });
});
