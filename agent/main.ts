/**
 * The node agent: `ocloud-node-agent --service <url> --node </cluster/site/node> [--ptp4l <uds>]
 * [--gpsd <host:port>] [--chronyd <socket> | --phc2sys <source>] [--serve [host:]port]`
 * (`npm run agent -- …` in the repository), or the same settings as environment variables
 * (docs/agent.md). Without `--serve` it listens on nothing: it only connects to ptp4l's socket,
 * gpsd, chronyd (through chronyc) and the service. With it, it also serves the O-Cloud API for its
 * node (agent/serve, docs/node-api.md), and every event goes to the node's subscribers first.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readSettingsFrom } from '../lib/config';
import { normaliseResourceAddress } from '../lib/domain/resource-address';
import { BASE_PATH as API_PATH } from '../lib/http/base-path';
import { version } from '../package.json';
import { ChronydWatcher } from './chronyd';
import { RESOURCES, type Resource, resourceAddress } from './events';
import { GpsdWatcher } from './gpsd';
import { NodeAgent } from './node-agent';
import { Outbox, type QueuedEvent } from './outbox';
import { Phc2sysWatcher } from './phc2sys';
import { Ptp4lWatcher } from './ptp4l';
import type { NodeStatus } from './serve/node-health';
import { nodeSettings } from './serve/node-settings';
import { type Auth, Sender, ServiceClient, serviceOrigin } from './service';
import { SynceAgent, synceAddress } from './synce-agent';
import { Synce4lWatcher } from './synce4l';

const USAGE = `usage: ocloud-node-agent --service <url> --node </cluster/site/node> [--ptp4l <uds path>] [--gpsd <host:port>]
         [--chronyd <socket> | --phc2sys <-|file|journal:unit>] [--serve [host:]port]   (npm run agent -- … in the repository)
  --service  SERVICE_URL   the service's origin, e.g. http://127.0.0.1:3000, or its API base
                           (…/api/ocloudNotifications/v2, as npm start prints it)
  --serve    AGENT_SERVE   also serve the O-Cloud Notification API for this node on [host:]port
                           (loopback unless a host is named; 9043 is the port Red Hat's consumer expects)
  --node     NODE_ADDRESS  the node's resource address, e.g. /cluster-1/site-1/node-1
  --ptp4l    PTP4L_UDS     ptp4l's uds_address, e.g. /var/run/ptp4l
  --gpsd     GPSD          gpsd's host:port, e.g. 127.0.0.1:2947
  --chronyd  CHRONYD_SOCKET  chronyd's command socket, e.g. /run/chrony/chronyd.sock (read with chronyc)
  --phc2sys  PHC2SYS       where phc2sys's offset lines come from: - (standard input), a file, or journal:<unit>
  --synce4l  SYNCE4L       where synce4l's log lines come from: - (standard input), a file, or journal:<unit>
  --synce4l-socket  SYNCE4L_SOCKET  synce4l's smc_socket_path, for each device's QL (e.g. /run/synce4l_socket)
  --os-clock-max-offset-ns  OS_CLOCK_MAX_OFFSET_NS  the OS clock is LOCKED within +/- this offset
                           (default 100 with --phc2sys, 1000000 with --chronyd)
  --os-clock-holdover-s  OS_CLOCK_HOLDOVER_S  HOLDOVER this long after its source is lost, then FREERUN (default 5)
  --domain   PTP4L_DOMAIN  ptp4l's domainNumber (default 0)
  --max-offset-ns  MAX_OFFSET_NS  a follower is LOCKED within +/- this master offset (default 100)
  --poll-ms  POLL_MS       how often ptp4l's data sets and chronyd are read (default 200)
  --auth     AGENT_AUTH    none (default), iam (SigV4, standard AWS credential chain) or jwt
  --token-file  AGENT_TOKEN_FILE  the bearer token's file, with --auth jwt
  --state-dir   STATE_DIRECTORY   where unsent events are kept (default .data/agent)
  --outbox-max  OUTBOX_MAX        at most this many unsent events on disk (default 1000)
  LOG_LEVEL=debug                 also logs each event the service accepted, and each retry
  --version                       prints the agent's release`;
const VERSION = `ocloud-node-agent ${version}`;

interface Settings {
  readonly service: string;
  readonly node: string;
  readonly ptp4l?: string;
  readonly gpsd?: { host: string; port: number };
  readonly osClock?: { kind: 'chronyd' | 'phc2sys'; source: string; maxOffsetNs: number; holdoverMs: number };
  readonly synce4l?: { source: string; socket?: string };
  readonly domain: number;
  readonly maxOffsetNs: number;
  readonly pollMs: number;
  readonly auth: Auth;
  readonly stateDir: string;
  readonly outboxMax: number;
  readonly serve?: { readonly host: string; readonly port: number };
}

class SettingsError extends Error {}

function settings(argv: string[], env: NodeJS.ProcessEnv): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      service: { type: 'string' },
      node: { type: 'string' },
      ptp4l: { type: 'string' },
      gpsd: { type: 'string' },
      chronyd: { type: 'string' },
      phc2sys: { type: 'string' },
      synce4l: { type: 'string' },
      'synce4l-socket': { type: 'string' },
      'os-clock-max-offset-ns': { type: 'string' },
      'os-clock-holdover-s': { type: 'string' },
      domain: { type: 'string' },
      'max-offset-ns': { type: 'string' },
      'poll-ms': { type: 'string' },
      auth: { type: 'string' },
      'token-file': { type: 'string' },
      'state-dir': { type: 'string' },
      'outbox-max': { type: 'string' },
      serve: { type: 'string' },
      help: { type: 'boolean' },
      version: { type: 'boolean' },
    },
  });
  if (values.help) throw new SettingsError(USAGE);
  if (values.version) throw new SettingsError(VERSION);
  const service = values.service ?? env.SERVICE_URL;
  if (!service || !/^https?:\/\//.test(service))
    throw new SettingsError('--service (SERVICE_URL) must be an http(s) URL');
  const rawNode = values.node ?? env.NODE_ADDRESS;
  if (!rawNode) throw new SettingsError('--node (NODE_ADDRESS) is required, e.g. /cluster-1/site-1/node-1');
  let node: string;
  try {
    node = normaliseResourceAddress(rawNode, '--node');
    for (const resource of Object.keys(RESOURCES) as Resource[]) {
      normaliseResourceAddress(resourceAddress(node, resource), '--node');
    }
  } catch (error) {
    throw new SettingsError(error instanceof Error ? error.message : String(error));
  }
  const ptp4l = values.ptp4l ?? env.PTP4L_UDS;
  const gpsdText = values.gpsd ?? env.GPSD;
  let gpsd: Settings['gpsd'];
  if (gpsdText) {
    const match = /^(.+):(\d{1,5})$/.exec(gpsdText);
    if (!match?.[1] || !match[2])
      throw new SettingsError(`--gpsd (GPSD) "${gpsdText}" must be host:port, e.g. 127.0.0.1:2947`);
    gpsd = { host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2]) };
  }
  const chronyd = values.chronyd ?? env.CHRONYD_SOCKET;
  const phc2sys = values.phc2sys ?? env.PHC2SYS;
  if (chronyd && phc2sys)
    throw new SettingsError(
      'give --chronyd (CHRONYD_SOCKET) or --phc2sys (PHC2SYS), not both: one of them disciplines the OS clock',
    );
  if (phc2sys && !ptp4l)
    throw new SettingsError(
      '--phc2sys (PHC2SYS) needs --ptp4l (PTP4L_UDS): the OS clock follows its PTP clock',
    );
  if (chronyd) requireChronyc();
  let osClock: Settings['osClock'];
  if (chronyd || phc2sys) {
    const maxOffsetNs = integer(
      values['os-clock-max-offset-ns'] ?? env.OS_CLOCK_MAX_OFFSET_NS,
      chronyd ? 1_000_000 : 100,
      '--os-clock-max-offset-ns (OS_CLOCK_MAX_OFFSET_NS)',
      0,
    );
    const holdoverS = integer(
      values['os-clock-holdover-s'] ?? env.OS_CLOCK_HOLDOVER_S,
      5,
      '--os-clock-holdover-s (OS_CLOCK_HOLDOVER_S)',
      0,
      86_400,
    );
    osClock = chronyd
      ? // chronyc takes a path for a socket only when it starts with a slash.
        { kind: 'chronyd', source: resolve(chronyd), maxOffsetNs, holdoverMs: holdoverS * 1000 }
      : { kind: 'phc2sys', source: phc2sys ?? '-', maxOffsetNs, holdoverMs: holdoverS * 1000 };
  }
  const synce4lSource = values.synce4l ?? env.SYNCE4L;
  const synce4lSocket = values['synce4l-socket'] ?? env.SYNCE4L_SOCKET;
  if (synce4lSocket && !synce4lSource)
    throw new SettingsError(
      '--synce4l-socket (SYNCE4L_SOCKET) needs --synce4l (SYNCE4L): its lines name the devices',
    );
  const synce4l = synce4lSource ? { source: synce4lSource, socket: synce4lSocket } : undefined;
  const serveText = values.serve ?? env.AGENT_SERVE;
  const serve = serveText ? listenAddress(serveText) : undefined;
  // Serving, the node's producers may all be other processes that publish through its API.
  if (!ptp4l && !gpsd && !osClock && !synce4l && !serve)
    throw new SettingsError(
      'nothing to follow: give --ptp4l (PTP4L_UDS), --gpsd (GPSD), --chronyd (CHRONYD_SOCKET), --synce4l (SYNCE4L) or a combination, or --serve (AGENT_SERVE) for producers of its own',
    );
  const authKind = values.auth ?? env.AGENT_AUTH ?? 'none';
  let auth: Auth;
  if (authKind === 'none') auth = { kind: 'none' };
  else if (authKind === 'iam') {
    const region = env.AWS_REGION ?? /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(service)?.[1];
    if (!region) throw new SettingsError('--auth iam needs AWS_REGION (or an execute-api URL that names it)');
    auth = { kind: 'iam', region };
  } else if (authKind === 'jwt') {
    const tokenFile = values['token-file'] ?? env.AGENT_TOKEN_FILE;
    if (!tokenFile) throw new SettingsError('--auth jwt needs --token-file (AGENT_TOKEN_FILE)');
    auth = { kind: 'jwt', tokenFile };
  } else throw new SettingsError(`--auth (AGENT_AUTH) "${authKind}" must be none, iam or jwt`);
  return {
    service,
    node,
    ptp4l,
    gpsd,
    osClock,
    synce4l,
    domain: integer(values.domain ?? env.PTP4L_DOMAIN, 0, '--domain (PTP4L_DOMAIN)', 0, 255),
    maxOffsetNs: integer(
      values['max-offset-ns'] ?? env.MAX_OFFSET_NS,
      100,
      '--max-offset-ns (MAX_OFFSET_NS)',
      0,
    ),
    pollMs: integer(values['poll-ms'] ?? env.POLL_MS, 200, '--poll-ms (POLL_MS)', 10, 60_000),
    auth,
    stateDir: values['state-dir'] ?? env.STATE_DIRECTORY ?? '.data/agent',
    outboxMax: integer(values['outbox-max'] ?? env.OUTBOX_MAX, 1000, '--outbox-max (OUTBOX_MAX)', 1),
    serve,
  };
}

/** `--serve`'s `[host:]port`: `9043`, `127.0.0.1:9043`, `0.0.0.0:9043`, `[::1]:9043`. */
function listenAddress(text: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535)
    throw new SettingsError(
      `--serve (AGENT_SERVE) "${text}" must be [host:]port, e.g. 9043 (loopback) or 0.0.0.0:9043 (every interface)`,
    );
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
}

/** chronyd is read through chronyc: without it the agent would report a FREERUN that is not. */
function requireChronyc(): void {
  try {
    execFileSync('chronyc', ['-v'], { stdio: 'ignore' });
  } catch {
    throw new SettingsError('--chronyd needs chronyc on PATH (Debian: apt-get install chrony)');
  }
}

function integer(
  text: string | undefined,
  fallback: number,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`${name} "${text}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

async function main(): Promise<void> {
  let config: Settings;
  try {
    config = settings(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    if (error.message === VERSION) console.log(VERSION);
    else console.error(error.message);
    process.exit(error.message === USAGE || error.message === VERSION ? 0 : 2);
  }
  const log = (line: string) => console.log(line);
  // One outbox per node and service, so two agents on one machine never share a file.
  // Keyed on the origin, so that both forms of --service find the same outbox.
  const key = createHash('sha256')
    .update(`${serviceOrigin(config.service)}\n${config.node}`)
    .digest('hex')
    .slice(0, 16);
  const outbox = new Outbox(join(config.stateDir, `outbox-${key}.json`), config.outboxMax, (dropped) =>
    log(`outbox full (${config.outboxMax}): dropped ${dropped.event.type} of ${dropped.event.time}`),
  );
  const client = new ServiceClient(config.service, config.auth);
  // LOG_LEVEL=debug adds a line for each event the service took, with how long after the
  // daemon's observation (its `time`) that was.
  const debug = process.env.LOG_LEVEL === 'debug';
  const sender = new Sender(
    client,
    outbox,
    log,
    (sent, status) => {
      if (!debug) return;
      const now = Date.now();
      const afterMs = now - Date.parse(sent.event.time);
      log(
        `${new Date(now).toISOString()} accepted ${sent.event.id} ${sent.address} (HTTP ${status}, ${afterMs} ms after it was observed)`,
      );
    },
    debug,
  );
  const osClock = config.osClock;
  const followed = [
    config.ptp4l && { daemon: 'ptp4l', source: config.ptp4l },
    config.gpsd && { daemon: 'gpsd', source: `${config.gpsd.host}:${config.gpsd.port}` },
    osClock && { daemon: osClock.kind, source: osClock.source },
    config.synce4l && { daemon: 'synce4l', source: config.synce4l.source },
  ].filter((daemon) => !!daemon);
  // Publishers are registered at start (201 or 409 alike), and again whenever the service lost one.
  const published: Resource[] = [
    ...(config.ptp4l ? (['lockState', 'clockClass'] as const) : []),
    ...(config.gpsd ? (['gnss'] as const) : []),
    ...(osClock ? (['osClock'] as const) : []),
    // sync-state folds ptp4l, gpsd and the OS clock; SyncE stays out of it (docs/agent.md).
    ...(config.ptp4l || config.gpsd || osClock ? (['syncState'] as const) : []),
  ];
  const node = config.serve && (await serveNode(config, config.serve, outbox, sender, followed, log));
  if (node)
    await Promise.all(
      published.map((resource) => node.host.register(resourceAddress(config.node, resource))),
    );
  const agent = new NodeAgent(
    config.node,
    config.maxOffsetNs,
    // Serving, an event goes to the outbox and to the node's subscribers side by side.
    node ? node.sink : outbox,
    () => sender.kick(),
    log,
    osClock && { ...osClock, followsPtp: osClock.kind === 'phc2sys' },
  );
  if (outbox.size > 0) log(`${outbox.size} event(s) left unsent by the last run: sending them first`);

  const stops: (() => void)[] = [];
  if (config.ptp4l) {
    const ptp4l = new Ptp4lWatcher(
      {
        udsPath: config.ptp4l,
        // Beside ptp4l's own socket, as pmc binds /var/run/pmc.<pid> beside /var/run/ptp4l.
        clientPath: join(dirname(config.ptp4l), `ocloud-agent.${process.pid}`),
        domain: config.domain,
        pollMs: config.pollMs,
      },
      (report) => agent.onPtp(report),
    );
    ptp4l.start();
    stops.push(() => ptp4l.stop());
  }
  if (config.gpsd) {
    const gpsd = new GpsdWatcher(config.gpsd.host, config.gpsd.port, (report) => agent.onGnss(report));
    gpsd.start();
    stops.push(() => gpsd.stop());
  }
  if (osClock) {
    const watcher =
      osClock.kind === 'chronyd'
        ? new ChronydWatcher(osClock.source, config.pollMs, (report) => agent.onOsClock(report))
        : new Phc2sysWatcher(osClock.source, (report) => agent.onOsClock(report));
    watcher.start();
    stops.push(
      () => watcher.stop(),
      () => agent.stop(),
    );
  }
  if (config.synce4l) {
    // Its publishers first, on the node when it serves (as the others' above), then synce4l.
    for (const resource of ['synceLock', 'synceQuality'] as const) {
      if (node) await node.host.register(synceAddress(config.node, resource));
      void sender.register(synceAddress(config.node, resource)).catch(() => undefined);
    }
    const synce = new SynceAgent(config.node, node ? node.sink : outbox, () => sender.kick(), log);
    const watcher = new Synce4lWatcher(
      config.synce4l.source,
      config.synce4l.socket,
      config.pollMs,
      (report) => synce.onReport(report),
    );
    void watcher.start();
    stops.push(() => watcher.stop());
  }
  void Promise.all(
    published.map((resource) =>
      sender.register(resourceAddress(config.node, resource)).catch(() => undefined),
    ),
  ).then(() => sender.kick());
  log(
    `node agent for ${config.node}: ${followed.map(({ daemon, source }) => `${daemon} at ${source}`).join(', ') || 'no daemon'}; publishing to ${client.url} (auth ${config.auth.kind})${node ? `; serving the node's API at ${node.host.url}${API_PATH}` : ''}`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      // Said, so that a stop is told apart from a crash in the node's log.
      log(`stopping on ${signal}`);
      for (const stop of stops) stop();
      sender.stop();
      void (node ? node.host.stop() : Promise.resolve()).finally(() => process.exit(0));
    });
  }
}

/**
 * `--serve`: the node's own API (agent/serve/node-host.ts). Its settings are given before its
 * code is loaded, since the service's code reads them as it loads. Every event accepted on the
 * node, the agent's own and other producers', goes to the outbox for the region.
 */
async function serveNode(
  config: Settings,
  listen: { host: string; port: number },
  outbox: Outbox,
  sender: Sender,
  followed: NodeStatus['daemons'],
  log: (line: string) => void,
) {
  readSettingsFrom(nodeSettings(config.stateDir, process.env));
  // Read by the service's libraries themselves as they load: the functions' log lines name the
  // agent, and their metrics are EMF lines on standard output (a node's log shipper may forward
  // them to CloudWatch) unless the node names another environment, such as `Agent` for a
  // CloudWatch agent on the node. Never the library's default, which probes for one.
  process.env.POWERTOOLS_SERVICE_NAME ??= 'ocloud-node-agent';
  process.env.AWS_EMF_ENVIRONMENT ??= 'Local';
  const { startNodeHost } = await import('./serve/node-host');
  const nodeKey = createHash('sha256').update(config.node).digest('hex').slice(0, 16);
  const host = await startNodeHost({
    node: config.node,
    stateDir: config.stateDir,
    storeDir: `node-${nodeKey}`,
    listen,
    forward: (item) => {
      outbox.push(item);
      sender.kick();
    },
    status: () => ({
      daemons: followed,
      region: {
        url: sender.url,
        reachable: sender.problem === undefined,
        ...(sender.problem ? { problem: sender.problem } : {}),
      },
      outbox: { depth: outbox.size },
    }),
    log,
  }).catch((error: unknown) => {
    console.error(
      `cannot serve the node's API on ${listen.host}:${listen.port}: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  });
  // The agent's events go to the region's outbox as they are seen, and to the node's API beside it,
  // each address's in order: one publish at a time. The node does not forward them again, so each
  // goes to the region once, whether or not the node can take it (its disk failing).
  let chain = Promise.resolve();
  const sink = {
    push: (item: QueuedEvent) => {
      outbox.push(item);
      sender.kick();
      chain = chain.then(() =>
        host.publish(item).catch((error: unknown) => {
          log(
            `the node's API could not take ${item.event.type} for ${item.address} (${String(error)}); the region gets it all the same`,
          );
        }),
      );
    },
  };
  return { host, sink };
}

await main();
