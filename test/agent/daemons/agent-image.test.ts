/**
 * The agent's image (`npm run build:agent-image`; root, podman, runc, mmdebstrap, linuxptp, chrony;
 * skipped with the reason where one is missing): built, then run with podman as a node runs it,
 * `--network host`, following a real grandmaster ptp4l, a client chronyd (through the image's
 * chronyc) and, where it builds, a follower synce4l (scripts/agent-lab.ts, synce-lab.ts) through
 * their sockets and logs in a folder mounted at the same path, its state directory mounted from
 * the host, serving the node's API for the DaemonSet's liveness probe, and publishing to
 * `npm start` for a subscribed consumer. It runs as the DaemonSet runs it, root with
 * DAC_OVERRIDE alone: ptp4l 3.1's socket admits no other user (it has no `uds_file_mode`), nor
 * do synce4l's and chronyd's; the image's own user is checked apart.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_PATH } from '../../../lib/http/base-path';
import {
  daemonsMissing,
  notificationsAt,
  PROJECT_DIR,
  startChronydPair,
  startConsumer,
  startPtpPair,
  startService,
  subscribeToCluster,
  until,
} from '../../../scripts/agent-lab';
import { IMAGE, podman, podmanCommand } from '../../../scripts/build-agent-image';
import { freePort } from '../../../scripts/dynamodb-local';
import { startChild } from '../../../scripts/processes';
import { buildSynce4l, startSyncePair } from './synce-lab';

const missing = daemonsMissing(['ip', 'ptp4l', 'pmc', 'chronyd', 'podman', 'runc', 'mmdebstrap']);
if (missing)
  console.warn(`Skipping the agent image's test: ${missing} (apt-get install -y podman runc mmdebstrap).`);

type Started<T extends (...args: never[]) => unknown> = Awaited<ReturnType<T>>;
const cluster = `image-${randomUUID().slice(0, 8)}`;
const node = `/${cluster}/site-1/node-1`;
const LOCK = `${node}/sync/ptp-status/lock-state`;
const CLASS = `${node}/sync/ptp-status/clock-class`;
const OS = `${node}/sync/sync-status/os-clock-sync-state`;
const SYNCE = `${node}/synce1/sync/synce-status/lock-state`;
const IMAGE_UID = 10001;

describe.skipIf(missing)('the agent image, run with podman', { timeout: 600_000 }, () => {
  let dir: string;
  let service: Started<typeof startService>;
  let consumer: Started<typeof startConsumer>;
  let ptp: Started<typeof startPtpPair>;
  let chrony: Started<typeof startChronydPair>;
  let synce: Started<typeof startSyncePair> | undefined;
  let container: ReturnType<typeof startChild> | undefined;
  let built = '';
  const name = `ocloud-agent-test-${randomUUID().slice(0, 8)}`;
  const evidence = () =>
    `the container said:\n${container?.output().slice(-3000)}\nnpm start said:\n${service.output().slice(-2000)}`;
  const { valuesAt, expectValues } = notificationsAt(() => consumer.received, evidence);

  beforeAll(async () => {
    built = execFileSync('npm', ['run', '-s', 'build:agent-image'], {
      cwd: PROJECT_DIR,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 540_000,
    });
    dir = mkdtempSync(join(tmpdir(), 'ocloud-image-'));
    chmodSync(dir, 0o755);
    [service, consumer] = await Promise.all([startService(dir), startConsumer()]);
    ptp = await startPtpPair(dir);
    chrony = await startChronydPair(dir);
    // synce4l where it builds here (libnl); the image follows it through the same mounts.
    const synce4l = buildSynce4l(dir);
    if ('binary' in synce4l) synce = await startSyncePair(dir, synce4l.binary);
    else console.warn(`The image follows no synce4l: ${synce4l.missing}.`);
    await subscribeToCluster(service.api, cluster, LOCK, consumer.url);
  }, 600_000);

  afterAll(async () => {
    await service?.stop();
    await container?.stop();
    const remove = podmanCommand(['rm', '--force', '--ignore', name]);
    spawnSync('podman', remove.args, { env: remove.env });
    await ptp?.remove();
    await chrony?.remove();
    await synce?.remove();
    await consumer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('is built from Debian packages and the registry’s Node.js, its size beside Node.js’s own', () => {
    const report = /^(\S+): (\d+) MiB, of which Node\.js (\d+) (\d+) MiB$/m.exec(built);
    expect(report?.[1]).toBe(IMAGE);
    console.log(`image ${report?.[2]} MiB, Node.js ${report?.[3]} ${report?.[4]} MiB`);
    expect(Number(report?.[2])).toBeLessThan(400);
    // One container (vfs copies the image for each): Node.js, chronyc, its user, its state directory.
    const said = podman([
      'run',
      '--rm',
      '--pull=never',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'node --version; chronyc -v; id -u; echo $STATE_DIRECTORY; stat -c %u /var/lib/ocloud-agent',
    ]).split('\n');
    expect(said[0]).toMatch(/^v24\./);
    expect(said[1]).toMatch(/^chronyc \(chrony\) version 4\./);
    expect(said.slice(2, 5)).toEqual([String(IMAGE_UID), '/var/lib/ocloud-agent', String(IMAGE_UID)]);
  });

  it('follows real ptp4l, chronyd and synce4l through mounted sockets as the DaemonSet runs it, serving /health', async () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const serve = await freePort();
    const command = podmanCommand([
      'run',
      '--rm',
      '--pull=never',
      '--name',
      name,
      '--network',
      'host',
      // The DaemonSet's securityContext.
      '--user',
      '0:0',
      '--cap-drop',
      'ALL',
      '--cap-add',
      'DAC_OVERRIDE',
      '--security-opt',
      'no-new-privileges',
      '--read-only',
      '--volume',
      `${dir}:${dir}`,
      '--volume',
      `${state}:/var/lib/ocloud-agent`,
      '--env',
      `SERVICE_URL=${service.base}`,
      '--env',
      `NODE_ADDRESS=${node}`,
      '--env',
      `PTP4L_UDS=${ptp.gmUds}`,
      '--env',
      `CHRONYD_SOCKET=${chrony.socket}`,
      ...(synce
        ? ['--env', `SYNCE4L=${synce.follower.log}`, '--env', `SYNCE4L_SOCKET=${synce.follower.socket}`]
        : []),
      '--env',
      `AGENT_SERVE=127.0.0.1:${serve}`,
      '--env',
      'LOG_LEVEL=debug',
      IMAGE,
    ]);
    container = startChild('podman', command.args, { env: command.env });
    // The first event waits for npm start's first publish (seconds on a loaded machine).
    await expectValues(LOCK, ['LOCKED'], 240_000);
    await expectValues(CLASS, ['6']);
    const health = await until(
      () =>
        fetch(`http://127.0.0.1:${serve}${BASE_PATH}/health`).then(
          async (response) => (response.ok ? response.text() : undefined),
          () => undefined,
        ),
      () => `/health to answer;\n${evidence()}`,
    );
    expect(health).toContain('OK');
    // chronyd through the image's chronyc, and synce4l's log and socket.
    await expectValues(OS, ['LOCKED']);
    if (synce)
      await until(
        () => (valuesAt(SYNCE).at(-1) === 'LOCKED' ? true : undefined),
        () => `${SYNCE} to be LOCKED (is ${valuesAt(SYNCE).join(' → ')});\n${evidence()}`,
        60_000,
      );
    const status = await fetch(`http://127.0.0.1:${serve}${BASE_PATH}/health`, {
      headers: { accept: 'application/json' },
    }).then((response) => response.json() as Promise<{ daemons: { daemon: string }[] }>);
    expect(status.daemons.map((d) => d.daemon)).toEqual(['ptp4l', 'chronyd', ...(synce ? ['synce4l'] : [])]);
    await ptp.setClockClass(7);
    await expectValues(LOCK, ['LOCKED', 'HOLDOVER']);
    await ptp.stopGm();
    await expectValues(LOCK, ['LOCKED', 'HOLDOVER', 'FREERUN']);
    await expectValues(CLASS, ['6', '7', '248']);
    // Its outbox is on the host.
    expect(readdirSync(state).some((file) => file.startsWith('outbox-'))).toBe(true);
    expect(valuesAt(LOCK)).toEqual(['LOCKED', 'HOLDOVER', 'FREERUN']);
  });
});
