import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  daemonsMissing,
  installAgentPackage,
  notificationsAt,
  startAgent,
  startChronydPair,
  startConsumer,
  startPtpPair,
  startService,
  subscribeToCluster,
  until,
} from '../../../scripts/agent-lab';

const missing = daemonsMissing(['ip', 'chronyd', 'chronyc', 'ptp4l', 'pmc']);
if (missing) console.warn(`Skipping the node agent's chronyd tests: ${missing}.`);

type Started<T extends (...args: never[]) => unknown> = Awaited<ReturnType<T>>;
interface Event {
  id: string;
  time: string;
  data: { values: { ResourceAddress: string; value_type: string; value: string }[] };
}

const cluster = `chrony-${randomUUID().slice(0, 8)}`;
const ntpNode = `/${cluster}/site-1/ntp`;
const combinedNode = `/${cluster}/site-1/combined`;
const LOCK = '/sync/ptp-status/lock-state';
const OS = '/sync/sync-status/os-clock-sync-state';
const SYNC = '/sync/sync-status/sync-state';
const HOLDOVER_S = 3;

describe.skipIf(missing)('the node agent against a real chronyd pair', { timeout: 240_000 }, () => {
  let dir: string;
  let service: Started<typeof startService>;
  let consumer: Started<typeof startConsumer>;
  let chrony: Started<typeof startChronydPair>;
  let ptp: Started<typeof startPtpPair>;
  let installed: string;
  let readyUrl: string;
  const agents: ReturnType<typeof startAgent>[] = [];
  const agent = (options: Parameters<typeof startAgent>[0]) => {
    const started = startAgent(options);
    agents.push(started);
    return started;
  };

  const evidence = () =>
    `the agents said:\n${agents.map((a) => a.output().slice(-2500)).join('\n---\n')}\nchronyd said:\n${chrony.clientOutput().slice(-1500)}`;
  const { eventsAt, valuesAt, expectValues } = notificationsAt(() => consumer.received, evidence);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocloud-chronyd-'));
    // The package, as a node gets it: built, then installed into an empty folder.
    installed = installAgentPackage(join(dir, 'node'));
    [service, consumer, chrony, ptp] = await Promise.all([
      startService(dir),
      startConsumer(),
      startChronydPair(dir),
      startPtpPair(dir),
    ]);
    // What a new user copies: the URL npm start's ready line prints (the API base).
    readyUrl = /API ready at (\S+)/.exec(service.output())?.[1] ?? '';
    await subscribeToCluster(service.api, cluster, `${ntpNode}${OS}`, consumer.url);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(agents.map((child) => child.stop()));
    await chrony?.remove();
    await ptp?.remove();
    await service?.stop();
    await consumer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs chronyd only in its own namespaces, never adjusting this clock, its sockets in 0700 folders', () => {
    expect(chrony.chronydArgs).toContain('-x');
    expect(chrony.clientConfigText).toMatch(/^server 10\.232\.0\.1 iburst minpoll -2 maxpoll -2$/m);
    const hostLinks = readdirSync('/sys/class/net');
    expect(chrony.interfaces).toHaveLength(2);
    for (const name of chrony.interfaces) expect(hostLinks).not.toContain(name);
  });

  it('installs from its package alone and takes the API base npm start prints: LOCKED at start, the offset beside', async () => {
    expect(readyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/ocloudNotifications\/v2$/);
    expect(readdirSync(join(installed, 'node_modules')).sort()).toEqual(
      expect.arrayContaining(['ocloud-node-agent', 'node-unix-socket']),
    );
    expect(readdirSync(join(installed, 'node_modules'))).not.toContain('serverless');
    const ntp = agent({
      command: join(installed, 'node_modules', '.bin', 'ocloud-node-agent'),
      service: readyUrl,
      node: ntpNode,
      chronyd: chrony.socket,
      stateDir: join(dir, 'agent-ntp'),
      args: ['--os-clock-holdover-s', String(HOLDOVER_S)],
    });
    agent({
      service: service.base,
      node: combinedNode,
      ptp4l: ptp.gmUds,
      chronyd: chrony.socket,
      stateDir: join(dir, 'agent-combined'),
      args: ['--os-clock-holdover-s', String(HOLDOVER_S)],
    });
    await expectValues(`${ntpNode}${OS}`, ['LOCKED']);
    await expectValues(`${ntpNode}${SYNC}`, ['LOCKED']);
    const [state, offset] = eventsAt(`${ntpNode}${OS}`)[0]?.data.values ?? [];
    expect(state?.value_type).toBe('enumeration');
    expect(offset?.value_type).toBe('decimal64.3');
    expect(offset?.value).toMatch(/^-?\d+(\.\d{1,3})?$/);
    // Software time stamps over a veth pair: chronyd's offset is microseconds, within the 1 ms default.
    expect(Math.abs(Number(offset?.value))).toBeLessThanOrEqual(1_000_000);
    expect(ntp.output()).toContain(`publishing to ${readyUrl} (auth none)`);
    expect(ntp.output()).not.toMatch(/HTTP 404/);
    for (const address of [LOCK, OS, SYNC]) await expectValues(`${combinedNode}${address}`, ['LOCKED']);
  });

  it('its NTP server stopped: HOLDOVER for the holdover time, then FREERUN; back: LOCKED', async () => {
    await chrony.stopServer();
    try {
      await expectValues(`${ntpNode}${OS}`, ['LOCKED', 'HOLDOVER', 'FREERUN']);
    } finally {
      await chrony.startServer();
    }
    expect(chrony.clientOutput()).toMatch(/no selectable sources/);
    const [, holdover, freerun] = eventsAt(`${ntpNode}${OS}`);
    const heldMs = Date.parse(freerun?.time ?? '') - Date.parse(holdover?.time ?? '');
    expect(heldMs).toBeGreaterThanOrEqual(HOLDOVER_S * 1000);
    expect(heldMs).toBeLessThan(HOLDOVER_S * 1000 + 2000);
    await expectValues(`${ntpNode}${OS}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
    await expectValues(`${ntpNode}${SYNC}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
  });

  it('a node whose PTP grandmaster stays locked: lock-state LOCKED, sync-state follows the OS clock to FREERUN', async () => {
    // The same loss of NTP, seen by the combined node's agent (ptp4l + chronyd).
    await expectValues(`${combinedNode}${OS}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
    await expectValues(`${combinedNode}${SYNC}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED']);
    expect(valuesAt(`${combinedNode}${LOCK}`)).toEqual(['LOCKED']);
  });

  it('chronyd itself stopped: FREERUN at once, naming its socket; restarted: LOCKED', async () => {
    const ntp = agents[0];
    await chrony.stopClient();
    try {
      await expectValues(`${ntpNode}${OS}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN']);
      await expectValues(`${combinedNode}${SYNC}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN']);
    } finally {
      await chrony.startClient();
    }
    expect(ntp?.output()).toContain(`chronyd at ${chrony.socket} does not answer`);
    await expectValues(`${ntpNode}${OS}`, ['LOCKED', 'HOLDOVER', 'FREERUN', 'LOCKED', 'FREERUN', 'LOCKED']);
    await expectValues(`${combinedNode}${SYNC}`, [
      'LOCKED',
      'HOLDOVER',
      'FREERUN',
      'LOCKED',
      'FREERUN',
      'LOCKED',
    ]);
    expect(valuesAt(`${combinedNode}${LOCK}`)).toEqual(['LOCKED']);
  });

  it('follows phc2sys: its offset lines, the PTP clock it follows (Table 37), its silence', async () => {
    const node = `/${cluster}/site-1/phc2sys`;
    const log = join(dir, 'phc2sys.log');
    writeFileSync(log, '');
    // phc2sys -m's line for each clock update (linuxptp phc2sys.c), here four a second.
    let line = { offset: -12, servo: 2 };
    let writing = true;
    let second = 100;
    const writer = setInterval(() => {
      if (!writing) return;
      const { offset, servo } = line;
      appendFileSync(
        log,
        `phc2sys[${second++}.000]: CLOCK_REALTIME phc offset ${String(offset).padStart(9)} s${servo} freq   -3061 delay    511\n`,
      );
    }, 250);
    const expected: string[] = [];
    const next = async (state: string) => {
      expected.push(state);
      await expectValues(`${node}${OS}`, expected);
    };
    try {
      agent({
        service: service.base,
        node,
        ptp4l: ptp.gmUds,
        stateDir: join(dir, 'agent-phc2sys'),
        args: ['--phc2sys', log, '--os-clock-holdover-s', String(HOLDOVER_S)],
      });
      await next('LOCKED');
      line = { offset: 250, servo: 2 }; // beyond the default ±100 ns
      await next('FREERUN');
      line = { offset: 8, servo: 0 }; // the servo unlocked
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(valuesAt(`${node}${OS}`)).toEqual(expected);
      line = { offset: 8, servo: 2 };
      await next('LOCKED');
      // The grandmaster in holdover: the OS clock following it is no better, however close.
      await ptp.setClockClass(7);
      await next('HOLDOVER');
      await ptp.setClockClass(6);
      await next('LOCKED');
      writing = false; // phc2sys stopped
      await next('HOLDOVER');
      await next('FREERUN');
      await expectValues(`${node}${SYNC}`, expected);
      expect(valuesAt(`${node}${LOCK}`)).toEqual(['LOCKED', 'HOLDOVER', 'LOCKED']);
    } finally {
      clearInterval(writer);
    }
  });

  it('a socket where nothing listens is followed as FREERUN, named in the log; the outbox is kept', async () => {
    const node = `/${cluster}/site-1/nothing`;
    const socket = join(dir, 'no-chronyd', 'chronyd.sock');
    const stateDir = join(dir, 'agent-nothing');
    // Events queued while the service is away are still there for the next run.
    await service.stop();
    let kept: { event: Event }[] = [];
    try {
      const first = agent({ service: service.base, node, chronyd: socket, stateDir });
      await until(
        () => (/keeping \d+ event\(s\) on disk/.test(first.output()) ? true : undefined),
        () => `the agent to keep its events: ${first.output()}`,
      );
      expect(first.output()).toContain(`chronyd at ${socket} does not answer (chronyc: `);
      expect(first.process.exitCode).toBeNull();
      await first.stop();
      const outbox = readdirSync(stateDir).find((name) => name.endsWith('.json')) ?? '';
      kept = JSON.parse(readFileSync(join(stateDir, outbox), 'utf8'));
    } finally {
      await service.start();
    }
    expect(kept.map(({ event }) => event.data.values[0]?.value)).toEqual(['FREERUN', 'FREERUN']);
    // The next run sends them first: the service takes each (202), as the agent logs it.
    const second = agent({ service: service.base, node, chronyd: socket, stateDir });
    await until(
      () => (kept.every(({ event }) => second.output().includes(`accepted ${event.id} `)) ? true : undefined),
      () => `the kept events to be taken;\n${second.output()}`,
      90_000,
    );
    expect(second.output()).toContain('2 event(s) left unsent by the last run: sending them first');
  }, 300_000);

  it('refuses --chronyd without chronyc, with exit 2 and what to install', async () => {
    const refused = agent({
      service: service.base,
      node: `/${cluster}/site-1/refused`,
      chronyd: chrony.socket,
      stateDir: join(dir, 'agent-refused'),
      env: { PATH: '/nonexistent' },
    });
    await until(() => refused.process.exitCode ?? undefined, 'the agent to exit');
    expect(refused.process.exitCode).toBe(2);
    expect(refused.output()).toContain('--chronyd needs chronyc on PATH (Debian: apt-get install chrony)');
  });
});
