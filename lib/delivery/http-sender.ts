import http from 'node:http';
import https from 'node:https';
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { parseIp } from '../net/ip';
import { CLOSED_AFTER_HANDSHAKE, type ClientTls, describeTlsError } from '../tls/client-tls';
import { createPolicyLookup, ENDPOINT_FORBIDDEN, type NetworkPolicy, unbracket } from './network-policy';

export type SendOutcome =
  | { kind: 'response'; status: number; retryAfterSeconds?: number }
  | { kind: 'timeout' }
  | { kind: 'network-error'; reason: string }
  | { kind: 'forbidden'; reason: string };

export interface PostJsonOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  policy: NetworkPolicy;
  userAgent: string;
  /** For https: the service's client certificate and the trusted CAs; Node's defaults without it. */
  tls?: ClientTls;
}

const MAX_DRAIN_BYTES = 64 * 1024;
/** How long an attempt may wait for one of the agent's sockets to its host before it counts as timed out. */
const SOCKET_WAIT_LIMIT_MS = 10_000;

// Idle sockets are dropped well before the usual 5 s server keep-alive so a
// reused socket is rarely one the consumer has already closed.
const agentOptions = { keepAlive: true, maxSockets: 64, timeout: 4_000 };
const httpAgent = new http.Agent(agentOptions);
const httpsAgent = new https.Agent(agentOptions);

// One agent per TLS context (a rotation reads a new one): a pooled socket is always one made with
// the context of the delivery that reuses it. The old agent's idle sockets close by its time-out.
const tlsAgents = new WeakMap<ClientTls, https.Agent>();
function httpsAgentFor(tls: ClientTls | undefined): https.Agent {
  if (!tls) return httpsAgent;
  let agent = tlsAgents.get(tls);
  if (!agent) {
    agent = new https.Agent({ ...agentOptions, secureContext: tls.secureContext });
    tlsAgents.set(tls, agent);
  }
  return agent;
}

/** A connection failure as a consumer reads it: TLS's own words for a handshake that failed. */
function connectionFailure(err: NodeJS.ErrnoException): string {
  return describeTlsError(err) ?? (err.code ? `${err.code}: ${err.message}` : err.message);
}

// One lookup per policy object, so the function is not rebuilt on every request.
const lookups = new WeakMap<NetworkPolicy, ReturnType<typeof createPolicyLookup>>();
function lookupFor(policy: NetworkPolicy) {
  let lookup = lookups.get(policy);
  if (!lookup) {
    lookup = createPolicyLookup(policy);
    lookups.set(policy, lookup);
  }
  return lookup;
}

/** Retry-After as delta-seconds or an HTTP-date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  // V8's Date.parse accepts almost anything ("-5" is a year); HTTP-dates start with a day name.
  const date = /^[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * POSTs a JSON body once. Never follows redirects and never throws for network
 * problems: every failure is mapped to an outcome for the retry logic.
 */
export function postJson(url: string, body: string, opts: PostJsonOptions): Promise<SendOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ kind: 'forbidden', reason: 'invalid URL' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ kind: 'forbidden', reason: `scheme ${target.protocol} not allowed` });
  }
  // Node skips `lookup` for literal IPs, so those are checked here instead.
  const host = unbracket(target.hostname);
  if (parseIp(host)) {
    const verdict = opts.policy.check(host);
    if (!verdict.allowed) return Promise.resolve({ kind: 'forbidden', reason: verdict.reason });
  }

  const isHttps = target.protocol === 'https:';
  return new Promise((resolve) => {
    // The attempt's time-out is the consumer's: it runs from the moment the request has its socket
    // (connecting or pooled), not while it waits for one of the agent's sockets to this host. With
    // more attempts to one host in flight than the agent's sockets, the waiting ones would
    // otherwise time out while their consumer answers promptly, and be sent again.
    let started = Date.now();
    const remaining = () => Math.max(0, opts.timeoutMs - (Date.now() - started));
    let settled = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    let req: http.ClientRequest | undefined;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    // A time-out is decided after the I/O already received is read (setImmediate runs after the
    // loop's poll phase): when the process was busy past the deadline, timers run before the
    // sockets are read, and an answer that arrived in time would be thrown away and sent again.
    const timeOutIn = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          setImmediate(() => {
            if (answered) return;
            finish({ kind: 'timeout' });
            req?.destroy();
          }),
        ms,
      );
    };

    // Waiting for a socket is bounded too: by then the host has kept every socket busy that long.
    timeOutIn(opts.timeoutMs + SOCKET_WAIT_LIMIT_MS);

    req = (isHttps ? https : http).request(
      target,
      {
        method: 'POST',
        agent: isHttps ? httpsAgentFor(opts.tls) : httpAgent,
        lookup: lookupFor(opts.policy),
        headers: {
          ...opts.headers,
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
          'User-Agent': opts.userAgent,
        },
      },
      (res) => {
        answered = true;
        const outcome: SendOutcome = { kind: 'response', status: res.statusCode ?? 0 };
        const retryAfter = parseRetryAfter(res.headers['retry-after']);
        if (retryAfter !== undefined) outcome.retryAfterSeconds = retryAfter;
        // The status is the consumer's verdict; past the deadline (or the cap) the
        // rest of the body is abandoned by destroying the socket, not waited for.
        clearTimeout(timer);
        timer = setTimeout(() => {
          finish(outcome);
          res.destroy();
        }, remaining());
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_DRAIN_BYTES) {
            finish(outcome);
            res.destroy();
          }
        });
        res.on('end', () => finish(outcome));
        res.on('error', () => finish(outcome));
        res.on('close', () => finish(outcome));
      },
    );
    // A pooled socket skips `lookup`; re-check where it is actually connected.
    // A socket this request connected and completed TLS on: closed before an answer, it was refused.
    let handshook = false;
    req.on('socket', (socket: Socket) => {
      started = Date.now();
      timeOutIn(opts.timeoutMs);
      if (socket.connecting && socket instanceof tls.TLSSocket) {
        socket.once('secureConnect', () => {
          handshook = true;
        });
      }
      if (socket.connecting || !socket.remoteAddress) return;
      const verdict = opts.policy.check(socket.remoteAddress);
      if (!verdict.allowed) {
        finish({ kind: 'forbidden', reason: verdict.reason });
        req?.destroy();
      }
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === ENDPOINT_FORBIDDEN) finish({ kind: 'forbidden', reason: err.message });
      else if (handshook && !answered && err.code === 'ECONNRESET') {
        finish({ kind: 'network-error', reason: CLOSED_AFTER_HANDSHAKE });
      } else finish({ kind: 'network-error', reason: connectionFailure(err) });
    });
    req.end(body);
  });
}

/**
 * How long a TLS 1.3 probe waits, after its side of the handshake, for the endpoint's verdict on the
 * client certificate: a session ticket (accepted) or an alert (refused). An endpoint that sends
 * neither in this time is taken to have accepted it.
 */
const TLS13_VERDICT_WAIT_MS = 250;

/**
 * Opens a connection to the URL's host and port as a delivery would (the same network policy, the
 * address checked where it is connected to), completes the TLS handshake for https (the
 * certificate verified for the host name, the client certificate presented), and closes it without
 * sending anything. Undefined when it connected within `timeoutMs`; otherwise why not.
 */
export function probeConnection(
  url: string,
  opts: Pick<PostJsonOptions, 'timeoutMs' | 'policy' | 'tls'>,
): Promise<string | undefined> {
  const target = new URL(url);
  const host = unbracket(target.hostname);
  if (parseIp(host)) {
    const verdict = opts.policy.check(host);
    if (!verdict.allowed) return Promise.resolve(`refused by the network policy: ${verdict.reason}`);
  }
  const isHttps = target.protocol === 'https:';
  const port = Number(target.port || (isHttps ? 443 : 80));
  return new Promise((resolve) => {
    const options = { host, port, lookup: lookupFor(opts.policy), timeout: opts.timeoutMs };
    const socket = isHttps
      ? tls.connect({
          ...options,
          ...(opts.tls ? { secureContext: opts.tls.secureContext } : {}),
          ...(parseIp(host) ? {} : { servername: host }),
        })
      : net.connect(options);
    const finish = (failure: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(failure);
    };
    const timer = setTimeout(() => finish(`no connection within ${opts.timeoutMs} ms`), opts.timeoutMs);
    socket.once(isHttps ? 'secureConnect' : 'connect', () => {
      if (socket.remoteAddress) {
        const verdict = opts.policy.check(socket.remoteAddress);
        if (!verdict.allowed) return finish(`refused by the network policy: ${verdict.reason}`);
      }
      // In TLS 1.3 the client's side of the handshake ends before the server has checked the client
      // certificate: its session ticket says it accepted, an alert (an error here) that it did not.
      if (socket instanceof tls.TLSSocket && socket.getProtocol() === 'TLSv1.3') {
        const accepted = setTimeout(() => finish(undefined), TLS13_VERDICT_WAIT_MS);
        socket.once('session', () => {
          clearTimeout(accepted);
          finish(undefined);
        });
        // Node's own server sends no alert: it closes the connection.
        socket.once('close', () => {
          clearTimeout(accepted);
          finish(`connection failed: ${CLOSED_AFTER_HANDSHAKE}`);
        });
        socket.resume();
        return;
      }
      finish(undefined);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === ENDPOINT_FORBIDDEN) finish(`refused by the network policy: ${err.message}`);
      else finish(`connection failed: ${connectionFailure(err)}`);
    });
  });
}

/** Undefined for a 2xx; otherwise a short reason a person can act on. */
export function describeFailure(outcome: SendOutcome, timeoutMs: number): string | undefined {
  switch (outcome.kind) {
    case 'response':
      return outcome.status >= 200 && outcome.status < 300 ? undefined : `it answered HTTP ${outcome.status}`;
    case 'timeout':
      return `no answer within ${timeoutMs} ms`;
    case 'network-error':
      return `connection failed: ${outcome.reason}`;
    case 'forbidden':
      return `refused by the network policy: ${outcome.reason}`;
  }
}
