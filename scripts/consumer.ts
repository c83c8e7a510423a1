/**
 * A sample O-Cloud event consumer: verifies every request as Standard Webhooks (the standardwebhooks
 * library), prints each notification, answers 204, or 401 and what failed.
 * `npm run consumer` (CONSUMER_PORT, default 9090; not PORT, which is npm start's); subscribe
 * http://127.0.0.1:9090/events with the secret in .data/consumer-secret as "SigningSecret"
 * (made on the first run and kept; SIGNING_SECRET overrides it). `npm run simulate` and the
 * README's tour read it there. `GET /events` answers how many arrived: {"verified": n, "rejected": n}.
 * `npm run consumer -- --tls`: serves https://127.0.0.1:9090/events instead, with the certificate
 * `npm start` made under .data/tls, and requires a client certificate signed by its local CA
 * (mutual TLS, as an edge endpoint of an operator's PKI would; docs/security.md). The `v1a`
 * signature is checked too, with the keys of API_URL (default: npm start's on PORT or 3000).
 */
import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import type { NotificationEvent } from '../lib/domain/event';
import { newSigningSecret } from '../lib/domain/signing-secret';
import { BASE_PATH } from '../lib/http/base-path';
import { LOCAL_TLS } from './local-tls';

export const SECRET_FILE = '.data/consumer-secret';

/** The consumer's signing secret: SIGNING_SECRET, or the one kept in SECRET_FILE, made if missing. */
export function consumerSecret() {
  if (process.env.SIGNING_SECRET) return { secret: process.env.SIGNING_SECRET, from: 'SIGNING_SECRET' };
  if (existsSync(SECRET_FILE)) return { secret: readFileSync(SECRET_FILE, 'utf8').trim(), from: SECRET_FILE };
  mkdirSync('.data', { recursive: true });
  const secret = newSigningSecret();
  writeFileSync(SECRET_FILE, `${secret}\n`, { mode: 0o600 });
  return { secret, from: `${SECRET_FILE} (made now)` };
}

/**
 * A request handler that verifies each request's body (up to 1 MB) as Standard Webhooks signed with
 * `secret`, answers 204, or 401 when it does not verify, and then tells `verified` or `rejected`.
 */
export function webhookReceiver(
  secret: string,
  verified: (event: NotificationEvent, req: http.IncomingMessage, raw: string) => void,
  rejected: (reason: string, req: http.IncomingMessage) => void,
): http.RequestListener {
  const webhook = new Webhook(secret);
  return (req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      if (raw.length < 1_000_000) raw += chunk;
    });
    req.on('end', () => {
      let event: NotificationEvent;
      try {
        event = webhook.verify(raw, req.headers as Record<string, string>) as NotificationEvent;
      } catch (error) {
        res.writeHead(401).end();
        return rejected(error instanceof Error ? error.message : String(error), req);
      }
      res.writeHead(204).end();
      verified(event, req, raw);
    });
  };
}

/**
 * The `v1a` (ed25519) signature checked with node:crypto against the keys the API publishes at
 * GET /signing-keys, fetched again when none verifies; reported, not enforced (v1 is).
 */
function v1aChecker(api: string) {
  let keys: KeyObject[] = [];
  const verifies = (h: http.IncomingHttpHeaders, body: string) => {
    const content = Buffer.from(`${h['webhook-id']}.${h['webhook-timestamp']}.${body}`);
    const signatures = String(h['webhook-signature'])
      .split(' ')
      .filter((s) => s.startsWith('v1a,'));
    return signatures.some((s) =>
      keys.some((k) => verify(null, content, k, Buffer.from(s.slice(4), 'base64'))),
    );
  };
  return async (headers: http.IncomingHttpHeaders, body: string) => {
    if (verifies(headers, body)) return 'v1a verified';
    try {
      const list = (await (await fetch(`${api}/signing-keys`)).json()) as { Keys: { Jwk: JsonWebKey }[] };
      keys = list.Keys.map((key) => createPublicKey({ key: key.Jwk, format: 'jwk' }));
    } catch (error) {
      return `v1a not checked: ${api}/signing-keys: ${error instanceof Error ? error.message : error}`;
    }
    return verifies(headers, body) ? 'v1a verified' : 'v1a NOT verified with the published keys';
  };
}

/** Node's https server requiring a client certificate signed by the local CA; one without is refused. */
function httpsServer(handle: http.RequestListener) {
  if (!existsSync(LOCAL_TLS.consumer)) {
    console.error(
      `No ${LOCAL_TLS.consumer}: run npm start once first, which makes the local CA and certificates.`,
    );
    process.exit(1);
  }
  const [cert, key, ca] = [LOCAL_TLS.consumer, LOCAL_TLS.consumerKey, LOCAL_TLS.ca].map((f) =>
    readFileSync(f),
  );
  return https.createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true }, handle);
}

function main() {
  const port = Number(process.env.CONSUMER_PORT || 9090);
  const { secret, from } = consumerSecret();
  const counts = { verified: 0, rejected: 0 };
  const v1a = v1aChecker(process.env.API_URL || `http://127.0.0.1:${process.env.PORT || 3000}${BASE_PATH}`);
  const head = (req: http.IncomingMessage) =>
    `${new Date().toISOString()} ${req.method} ${req.url} webhook-id=${req.headers['webhook-id'] ?? '-'}`;
  const receive = webhookReceiver(
    secret,
    async (event, req, raw) => {
      const n = ++counts.verified;
      const line = head(req); // before checking v1a, which may fetch the keys
      const values = event.data.values.map((v) => `${v.ResourceAddress}=${v.value}`).join(' ');
      console.log(`#${n} ${line} verified (v1; ${await v1a(req.headers, raw)})`);
      console.log(`   ${event.type} @ ${event.time}: ${values}`);
    },
    (reason, req) => {
      counts.rejected += 1;
      console.log(`REJECTED ${head(req)}: ${reason} (answered 401; was it subscribed with this secret?)`);
    },
  );
  const handle: http.RequestListener = (req, res) => {
    if (req.method !== 'GET') return receive(req, res);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
  };
  const tls = process.argv.includes('--tls');
  const server = tls ? httpsServer(handle) : http.createServer(handle);
  server.listen(port, '127.0.0.1', () => {
    const scheme = tls ? 'https' : 'http';
    const mutual = tls ? `, requiring a client certificate from ${LOCAL_TLS.ca}` : '';
    console.log(
      `Sample consumer listening on ${scheme}://127.0.0.1:${port}/events${mutual}, verifying every request with the secret from ${from} (Ctrl-C stops it)`,
    );
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      server.close();
      server.closeAllConnections();
      process.exit(0);
    });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
