/**
 * The node agent's lab: the real daemons and processes its tests (test/agent/daemons/) and its
 * benchmark (bench/agent.mjs) run, here so that the bench imports nothing from test/: ptp4l as a
 * grandmaster and as a follower in two network namespaces of their own joined by a veth pair
 * (software time stamping, UDP over the lab's own 10.x addresses, the follower with
 * `free_running 1`: no clock of the machine is ever adjusted), gpsd fed by gpsfake or by NMEA over
 * UDP, `npm start`, the agent, and a consumer that records what it gets.
 * Everything started here is removed by the `stop`/`remove` it returns.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { BASE_PATH } from '../lib/http/base-path';
import { freePort } from './dynamodb-local';
import { type Child, PROJECT_DIR, startChild, until, whenReady } from './processes';

const run = promisify(execFile);
/** A process of the lab, its output kept whole for the tests' evidence. */
const labChild = (command: string, args: string[], env?: NodeJS.ProcessEnv) =>
  startChild(command, args, { env, keep: 1_000_000 });

/** Why the real-daemon tests cannot run here (`tools`: the programs they run), or undefined when they can. */
export function daemonsMissing(tools: string[] = ['ip', 'ptp4l', 'pmc', 'gpsd', 'gpsfake']) {
  if (process.getuid?.() !== 0) return 'they need root (network namespaces)';
  const missing = tools.find((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  return missing && `${missing} is not installed (apt-get install -y linuxptp gpsd gpsd-clients chrony)`;
}

/**
 * `npm start` (scripts/start-local.ts) on its own port and data directory; `stop` and `start`
 * again keep the port and the data, as a restart of the service does.
 */
export async function startService(dir: string) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    LOCAL_DYNAMODB_DIR: join(dir, 'dynamodb'),
    LOCAL_QUEUE_FILE: join(dir, 'queue.db'),
  };
  let current: Child | undefined;
  const start = async () => {
    const started = labChild(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], env);
    current = started;
    await whenReady(started, 'npm start', () => started.output().includes('API ready at'), 180_000);
  };
  await start();
  return {
    base: `http://127.0.0.1:${port}`,
    api: `http://127.0.0.1:${port}${BASE_PATH}`,
    start,
    /** What the running (or last) `npm start` printed. */
    output: () => current?.output() ?? '',
    /** Ctrl-C, as a user stops it. */
    stop: async () => current?.stop('SIGINT'),
  };
}

/** A consumer on 127.0.0.1 that answers 204 and records each notification as it arrived. */
export async function startConsumer() {
  const received: Array<{ at: number; raw: string; headers: IncomingHttpHeaders; event: ReceivedEvent }> = [];
  const server = http.createServer(async (req, res) => {
    const raw = await text(req);
    res.writeHead(204).end();
    try {
      received.push({ at: Date.now(), raw, headers: req.headers, event: JSON.parse(raw) });
    } catch {
      // not JSON: not a notification
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/events`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface ReceivedEvent {
  id: string;
  source: string;
  type: string;
  time: string;
  data: { values: Array<{ ResourceAddress: string; data_type: string; value_type: string; value: unknown }> };
}

/**
 * What a consumer got for an address: each event once (a repeat has the same id), in arrival
 * order; and a wait for an exact sequence of values, whose time-out shows what came and `evidence`
 * (what the processes said then).
 */
export function notificationsAt(received: () => Array<{ event: ReceivedEvent }>, evidence: () => string) {
  const eventsAt = (address: string): ReceivedEvent[] => {
    const seen = new Set();
    return received()
      .map((r) => r.event)
      .filter((event) => event.data?.values?.[0]?.ResourceAddress === address)
      .filter((event) => !seen.has(event.id) && seen.add(event.id));
  };
  const valuesAt = (address: string) => eventsAt(address).map((event) => String(event.data.values[0]?.value));
  const expectValues = (address: string, expected: string[], timeoutMs = 30_000) =>
    until(
      () => (JSON.stringify(valuesAt(address)) === JSON.stringify(expected) ? true : undefined),
      () => `${address} to be ${expected.join(' → ')} (is ${valuesAt(address).join(' → ')});\n${evidence()}`,
      timeoutMs,
    );
  return { eventsAt, valuesAt, expectValues };
}

/**
 * What each daemon test does first: a publisher registered under the cluster (a subscription needs
 * one under its address; the agent then finds it through its 409) and the consumer subscribed to
 * the whole cluster, before any agent starts, so that it sees every state from the first. Returns
 * the subscription's signing secret.
 */
export async function subscribeToCluster(api: string, cluster: string, publisher: string, endpoint: string) {
  const registered = await post(`${api}/publishers`, { ResourceAddress: publisher });
  if (registered.status !== 201) throw new Error(`POST /publishers: HTTP ${registered.status}`);
  const subscribed = await post(`${api}/subscriptions`, {
    ResourceAddress: `/${cluster}`,
    EndpointUri: endpoint,
  });
  if (subscribed.status !== 201) throw new Error(`POST /subscriptions: HTTP ${subscribed.status}`);
  return String(subscribed.body.SigningSecret);
}

/** POSTs JSON to the service: its status and parsed answer. */
export async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The node agent as a user runs it (`npm run agent` is `node --import tsx agent/main.ts`; `command` the
 * installed package's bin instead), its log kept.
 */
export function startAgent(options: {
  service: string;
  node: string;
  stateDir: string;
  ptp4l?: string;
  gpsd?: string;
  chronyd?: string;
  args?: string[];
  command?: string;
  env?: NodeJS.ProcessEnv;
}) {
  const args = [
    ...(options.command ? [] : ['--import', 'tsx', 'agent/main.ts']),
    '--service',
    options.service,
    '--node',
    options.node,
    '--state-dir',
    options.stateDir,
    ...(options.ptp4l ? ['--ptp4l', options.ptp4l] : []),
    ...(options.gpsd ? ['--gpsd', options.gpsd] : []),
    ...(options.chronyd ? ['--chronyd', options.chronyd] : []),
    ...(options.args ?? []),
  ];
  const agent = labChild(options.command ?? process.execPath, args, {
    ...process.env,
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  return {
    ...agent,
    /** The log lines so far. */
    lines: () => agent.output().split('\n'),
  };
}

/**
 * The agent's package as a node gets it: built (`npm run build:agent`), then installed into the
 * empty folder `into` with npm. Returns the folder (its node_modules/.bin/ocloud-node-agent runs it).
 */
export function installAgentPackage(into: string): string {
  const built = execFileSync('npm', ['run', '-s', 'build:agent'], { cwd: PROJECT_DIR, encoding: 'utf8' });
  const tgz = built.trim().split(' ')[0] ?? '';
  mkdirSync(into);
  execFileSync(
    'npm',
    ['install', '--prefix', into, '--prefer-offline', '--no-fund', '--no-audit', '--loglevel=error', tgz],
    { encoding: 'utf8' },
  );
  return into;
}

/**
 * Runs linuxptp's own `pmc` against a ptp4l's socket. pmc waits a moment for the answer and
 * prints only what it sent when none came (a busy machine): it is asked again, up to 5 times.
 */
async function pmc(uds: string, ...commands: string[]) {
  let stdout = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    ({ stdout } = await run('pmc', ['-u', '-s', uds, '-b', '0', ...commands]));
    if (stdout.split('RESPONSE MANAGEMENT').length > commands.length) return stdout;
  }
  return stdout;
}

/** Asks `pmc` `command` until its answer matches `pattern`. */
function pmcUntil(uds: string, command: string, pattern: RegExp, what: string, timeoutMs = 30_000) {
  const answer = () =>
    pmc(uds, command).then(
      (out) => pattern.test(out) || undefined,
      () => undefined,
    );
  return until(answer, what, timeoutMs);
}

/**
 * Two network namespaces of the lab's own, `oa<role><tag>`, joined by a veth pair whose ends bear
 * the same names, each up with its address (and loopback up). `run` starts a daemon in one of
 * them; `remove` stops every daemon it started and deletes the namespaces, which takes each veth
 * end, and so the pair, with them.
 */
export function namespacePair(roles: [string, string], addresses: [string, string]) {
  const tag = randomBytes(3).toString('hex');
  const [a, b] = roles.map((role) => `oa${role}${tag}`) as [string, string];
  const ip = (command: string) => execFileSync('ip', command.split(' '), { stdio: 'pipe' });
  const deleteNamespaces = () => {
    for (const ns of [a, b]) {
      try {
        ip(`netns del ${ns}`);
      } catch {}
    }
  };
  try {
    for (const ns of [a, b]) ip(`netns add ${ns}`);
    ip(`link add ${a} netns ${a} type veth peer name ${b} netns ${b}`);
    for (const [i, ns] of [a, b].entries()) {
      ip(`-n ${ns} addr add ${addresses[i]} dev ${ns}`);
      ip(`-n ${ns} link set ${ns} up`);
      ip(`-n ${ns} link set lo up`);
    }
  } catch (error) {
    deleteNamespaces();
    throw error;
  }
  const daemons: Child[] = [];
  return {
    names: [a, b] as const,
    run(ns: string, command: string, args: string[]) {
      const daemon = labChild('ip', ['netns', 'exec', ns, command, ...args]);
      daemons.push(daemon);
      return daemon;
    },
    async remove() {
      for (const daemon of daemons) await daemon.stop();
      deleteNamespaces();
    },
  };
}

/**
 * Two ptp4l in two network namespaces of their own: a grandmaster (clock class 6) and a follower
 * (slave only, `free_running 1`, so it never adjusts a clock). The follower is told its
 * synchronisation is certain (SYNCHRONIZATION_UNCERTAIN_NP 0), which lets its free-running servo
 * report locked, so that its port reaches SLAVE without steering anything.
 */
export async function startPtpPair(dir: string) {
  const configure = (role: string, lines: string[]) => {
    const uds = join(dir, `ptp4l-${role}`);
    const text = [
      '[global]',
      'time_stamping software',
      'logAnnounceInterval 0',
      'announceReceiptTimeout 2',
      'logSyncInterval -2',
      `uds_address ${uds}`,
      ...lines,
      '',
    ].join('\n');
    writeFileSync(join(dir, `${role}.cfg`), text);
    return { uds, config: join(dir, `${role}.cfg`), text };
  };
  const gm = configure('gm', ['clockClass 6', 'priority1 100']);
  const follower = configure('follower', ['free_running 1', 'slaveOnly 1']);
  const pair = namespacePair(['gm', 'fo'], ['10.231.0.1/30', '10.231.0.2/30']);
  const [gmNs, followerNs] = pair.names;
  // Each in its namespace, on the interface of the same name.
  const ptp4l = (ns: string, config: string) => pair.run(ns, 'ptp4l', ['-4', '-m', '-f', config, '-i', ns]);
  let gmDaemon: Child | undefined;
  const startGm = async () => {
    gmDaemon = ptp4l(gmNs, gm.config);
    await pmcUntil(gm.uds, 'GET PORT_DATA_SET', /portState\s+MASTER/, 'the grandmaster');
  };
  try {
    await startGm();
    ptp4l(followerNs, follower.config);
    await pmcUntil(follower.uds, 'SET SYNCHRONIZATION_UNCERTAIN_NP 0', /uncertain 0/, 'the follower');
    await pmcUntil(follower.uds, 'GET PORT_DATA_SET', /portState\s+SLAVE/, 'the follower to lock', 60_000);
    return {
      /** The lab's interfaces, each inside its own namespace. */
      interfaces: pair.names,
      gmUds: gm.uds,
      followerUds: follower.uds,
      followerConfigText: follower.text,
      /**
       * `pmc SET GRANDMASTER_SETTINGS_NP` with another clock class, the rest as they are (what
       * ts2phc does on a GNSS loss). Resolves when pmc returns.
       */
      async setClockClass(clockClass: number) {
        const current = await pmc(gm.uds, 'GET GRANDMASTER_SETTINGS_NP');
        // pmc lists the settings one a line, in the order SET takes them.
        const settings = [...current.matchAll(/^\t+(\w+)\s+(\S+)$/gm)].map(([, name, value]) =>
          name === 'clockClass' ? `${name} ${clockClass}` : `${name} ${value}`,
        );
        const answer = await pmc(gm.uds, `SET GRANDMASTER_SETTINGS_NP ${settings.join(' ')}`);
        if (!new RegExp(`clockClass\\s+${clockClass}\\b`).test(answer))
          throw new Error(`SET refused: ${answer}`);
      },
      stopGm: async (signal: NodeJS.Signals = 'SIGTERM') => gmDaemon?.stop(signal),
      startGm,
      remove: pair.remove,
    };
  } catch (error) {
    await pair.remove();
    throw error;
  }
}

/**
 * An NMEA log of `[mode, seconds]` segments: each second a GPRMC, GPGGA and GPGSA as a receiver
 * sends them, with a fix of `mode` (1 none, 2 2D, 3 3D).
 */
export function nmeaLog(segments: Array<[1 | 2 | 3, number]>) {
  const modes = segments.flatMap(([mode, seconds]) => Array<1 | 2 | 3>(seconds).fill(mode));
  const start = Date.UTC(2026, 0, 1, 12, 0, 0);
  const lines = modes.flatMap((mode, second) => nmeaSecond(new Date(start + second * 1000), mode));
  return `${lines.join('\r\n')}\r\n`;
}

/** The second `at` of NMEA from a receiver with a fix of `mode` (1 none, 2 2D, 3 3D). */
function nmeaSecond(at: Date, mode: 1 | 2 | 3) {
  const iso = at.toISOString();
  const hms = `${iso.slice(11, 19).replaceAll(':', '')}.00`;
  const dmy = `${iso.slice(8, 10)}${iso.slice(5, 7)}${iso.slice(2, 4)}`;
  if (mode === 1) {
    return [
      sentence(`GPRMC,${hms},V,,,,,,,${dmy},,,N`),
      sentence(`GPGGA,${hms},,,,,0,00,99.9,,,,,,`),
      sentence('GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9'),
    ];
  }
  return [
    sentence(`GPRMC,${hms},A,4807.038,N,01131.000,E,0.0,0.0,${dmy},,,A`),
    // gpsd takes a GGA with an altitude as a 3D fix: a 2D receiver sends none.
    sentence(`GPGGA,${hms},4807.038,N,01131.000,E,1,08,0.9,${mode === 3 ? '545.4' : ''},M,46.9,M,,`),
    sentence(`GPGSA,A,${mode},04,05,09,12,24,25,29,31,,,,,1.8,1.0,1.5`),
  ];
}

function sentence(body: string) {
  let sum = 0;
  for (const char of body) sum ^= char.charCodeAt(0);
  return `$${body}*${sum.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** gpsfake replaying `logPath` once into a gpsd of its own on `port`. */
export function startGpsfake(logPath: string, port: number) {
  return labChild('gpsfake', ['-q', '-c', '0.2', '-P', String(port), '-1', logPath]);
}

/**
 * A gpsd on `port` reading NMEA from UDP on `udpPort` (gpsd's udp:// source), so that a benchmark
 * knows the moment each sentence is written.
 */
export function startUdpGpsd(port: number, udpPort: number) {
  return labChild('gpsd', ['-N', '-n', '-b', '-S', String(port), `udp://127.0.0.1:${udpPort}`]);
}

/**
 * A receiver on gpsd's UDP source `port`: one second of NMEA every 250 ms with the current fix
 * `mode`. `switchTo` writes the new mode's first sentences at once and resolves when they have
 * been sent: that is the change.
 */
export function nmeaFeeder(port: number) {
  const socket = dgram.createSocket('udp4');
  let second = 0;
  const feeder = {
    mode: 1 as 1 | 2 | 3,
    send() {
      const lines = nmeaSecond(new Date(Date.UTC(2026, 0, 1) + second++ * 1000), feeder.mode);
      const sent = (line: string) =>
        new Promise((resolve) => socket.send(`${line}\r\n`, port, '127.0.0.1', () => resolve(undefined)));
      return Promise.all(lines.map(sent));
    },
    async switchTo(mode: 1 | 2 | 3) {
      feeder.mode = mode;
      await feeder.send();
    },
    async stop() {
      clearInterval(timer);
      socket.close();
    },
  };
  const timer = setInterval(() => void feeder.send(), 250);
  return feeder;
}

/**
 * Two chronyd in two network namespaces of their own joined by a veth pair: an NTP server
 * (`local stratum 1`) and a client polling it four times a second. Both run with `-x`, so neither
 * ever adjusts this machine's clock; each command socket sits in a 0700 folder (chronyd disables
 * one in a folder others can read). `stopServer`/`startServer` take the client's source away and
 * back; `stopClient`/`startClient` the client chronyd itself.
 */
export async function startChronydPair(dir: string) {
  const configure = (role: string, lines: string[]) => {
    const folder = join(dir, `chronyd-${role}`);
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o700);
    const text = [
      ...lines,
      `bindcmdaddress ${join(folder, 'chronyd.sock')}`,
      'cmdport 0',
      `pidfile ${join(folder, 'chronyd.pid')}`,
      '',
    ].join('\n');
    writeFileSync(join(folder, 'chronyd.conf'), text);
    return { config: join(folder, 'chronyd.conf'), socket: join(folder, 'chronyd.sock'), text };
  };
  const server = configure('server', ['local stratum 1', 'allow 10.232.0.0/24', 'port 123']);
  const client = configure('client', ['server 10.232.0.1 iburst minpoll -2 maxpoll -2', 'port 0']);
  const chronydArgs = ['-d', '-x', '-u', 'root', '-f'];
  const pair = namespacePair(['cs', 'cc'], ['10.232.0.1/24', '10.232.0.2/24']);
  const [serverNs, clientNs] = pair.names;
  const startServer = () => pair.run(serverNs, 'chronyd', [...chronydArgs, server.config]);
  const startClient = () => pair.run(clientNs, 'chronyd', [...chronydArgs, client.config]);
  let serverChild = startServer();
  let clientChild = startClient();
  let clientLog = '';
  const clientOutput = () => clientLog + clientChild.output();
  const selected = () =>
    until(
      () =>
        run('chronyc', ['-c', '-h', client.socket, 'sources'])
          .then(({ stdout }) => (/^\^,\*,/m.test(stdout) ? true : undefined))
          .catch(() => undefined),
      () => `the client chronyd to select its server; it said:\n${clientOutput()}`,
      60_000,
    );
  try {
    await selected();
  } catch (error) {
    await pair.remove();
    throw error;
  }
  return {
    /** The lab's interfaces, each inside its own namespace. */
    interfaces: pair.names,
    chronydArgs,
    clientConfigText: client.text,
    /** The client chronyd's command socket: what the agent follows. */
    socket: client.socket,
    /** What the client chronyd has logged, over its restarts. */
    clientOutput,
    /**
     * Resolves with the moment the client chronyd next logs `pattern` (its `-d` output, read as
     * it is written): when it lost or selected its source, as chronyd itself saw it.
     */
    clientLogs: (pattern: RegExp): Promise<number> =>
      new Promise((resolve) => {
        let since = '';
        for (const stream of [clientChild.process.stdout, clientChild.process.stderr]) {
          stream?.on('data', (chunk) => {
            since += chunk;
            if (pattern.test(since)) resolve(Date.now());
          });
        }
      }),
    stopServer: async (signal: NodeJS.Signals = 'SIGTERM') => serverChild.stop(signal),
    startServer: async () => {
      serverChild = startServer();
      await selected();
    },
    stopClient: async () => {
      await clientChild.stop();
      clientLog += clientChild.output();
    },
    startClient: async () => {
      clientChild = startClient();
      await selected();
    },
    remove: pair.remove,
  };
}

export { freePort, PROJECT_DIR, until };
