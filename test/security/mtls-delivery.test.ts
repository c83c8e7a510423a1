/**
 * Through the handlers, as under `npm start`: a consumer on Node's https server that requires a
 * client certificate from a private CA (certificates made by openssl) receives the initial
 * notification and a queued delivery, verified with `v1` (standardwebhooks) and `v1a` (node:crypto,
 * with the key GET /signing-keys publishes). When it stops trusting the service, GET …/deliveries
 * says why.
 */
import { createPublicKey, verify } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { handler as listSigningKeys } from '../../functions/http/list-signing-keys';
import { signingWebhookKeys } from '../../lib/services';
import { CLOSED_AFTER_HANDSHAKE } from '../../lib/tls/client-tls';
import {
  api,
  expectJson,
  expectSubscribed,
  lockStatePublisher,
  publishAccepted,
  signingSecretOf,
} from '../handlers/api';
import { lockStateEvent } from '../support/fixtures';
import { httpApiEvent, invoke } from '../support/http-event';
import { issue, makeCa } from './pki';

const endpointCa = makeCa('edge endpoint CA');
const serviceCa = makeCa('ocloud service CA');
const strangerCa = makeCa('another CA');
const serverCert = issue(endpointCa, 'vdu-endpoint', 'server');
const client = issue(serviceCa, 'ocloud-notifications', 'client');
// Read at the first delivery (lib/config.ts), as `npm start` passes them.
process.env.ENDPOINT_CLIENT_CERT_FILE = client.certFile;
process.env.ENDPOINT_CLIENT_KEY_FILE = client.keyFile;
process.env.ENDPOINT_CA_FILE = endpointCa.certFile;

interface Received {
  headers: Record<string, string>;
  raw: string;
  clientCn: string;
}

const received: Received[] = [];
const server = https.createServer(
  {
    cert: serverCert.cert,
    key: serverCert.key,
    ca: serviceCa.cert,
    requestCert: true,
    rejectUnauthorized: true,
  },
  (req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const subject = (req.socket as TLSSocket).getPeerCertificate().subject;
      received.push({ headers: req.headers as Record<string, string>, raw, clientCn: String(subject?.CN) });
      res.writeHead(204).end();
    });
  },
);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpointUri = `https://localhost:${(server.address() as AddressInfo).port}/events`;
// As the daily rotateWebhookKeys (or npm start) would have: the key exists before the first subscribe.
await signingWebhookKeys().ensure(Date.now());

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function publishedKeys() {
  const response = await invoke(
    listSigningKeys as Parameters<typeof invoke>[0],
    httpApiEvent({
      method: 'GET',
      path: '/signing-keys',
      routeKey: 'GET /api/ocloudNotifications/v2/signing-keys',
    }),
  );
  return expectJson<{ Keys: { PublicKey: string; Jwk: { x: string }; Signing: boolean }[] }>(response, 200)
    .Keys;
}

/** A consumer's v1a check: node:crypto's ed25519 with a published key. */
function v1aVerifies(notification: Received, publicKey: string): boolean {
  const { headers, raw } = notification;
  const signature = /(?:^| )v1a,(\S+)/.exec(headers['webhook-signature'] ?? '')?.[1];
  if (!signature) return false;
  const x = Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  const content = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`;
  return verify(null, Buffer.from(content), key, Buffer.from(signature, 'base64'));
}

describe('mutual TLS with a private CA, and v1a, through the handlers', () => {
  it('delivers over mTLS signed v1 and v1a; a consumer that stops trusting the service sees why in …/deliveries', async () => {
    const publisher = await lockStatePublisher();
    const response = await api.createSubscription({
      ResourceAddress: publisher.address,
      EndpointUri: endpointUri,
    });
    const { SubscriptionId: id } = expectSubscribed(response) as unknown as { SubscriptionId: string };
    const secret = signingSecretOf(response);
    expect(received).toHaveLength(1); // the initial notification, answered before the 201

    const node = publisher.node;
    await publishAccepted(publisher.publisherId, lockStateEvent({ node, value: 'HOLDOVER' }));
    await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 10_000, interval: 20 });

    const [key, ...others] = await publishedKeys();
    expect(others).toEqual([]);
    expect(key?.Signing).toBe(true);
    for (const notification of received) {
      expect(notification.clientCn).toBe('ocloud-notifications');
      expect(notification.headers['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/);
      expect(() => new Webhook(secret).verify(notification.raw, notification.headers)).not.toThrow();
      expect(v1aVerifies(notification, String(key?.PublicKey))).toBe(true);
      // One byte more in the body, and v1a fails.
      expect(v1aVerifies({ ...notification, raw: `${notification.raw} ` }, String(key?.PublicKey))).toBe(
        false,
      );
    }

    // The consumer now trusts another CA only: the next attempt fails, and its reason is readable.
    server.setSecureContext({ cert: serverCert.cert, key: serverCert.key, ca: strangerCa.cert });
    server.closeAllConnections();
    await publishAccepted(publisher.publisherId, lockStateEvent({ node, value: 'FREERUN' }));
    await vi.waitFor(
      async () => {
        const statuses = expectJson<{ LastFailure?: { Reason: string } }[]>(
          await api.listDeliveries(id),
          200,
        );
        expect(statuses[0]?.LastFailure?.Reason).toBe(`connection failed: ${CLOSED_AFTER_HANDSHAKE}`);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(received).toHaveLength(2);
  });

  it('refuses a subscription whose endpoint does not trust the service, saying so', async () => {
    const publisher = await lockStatePublisher();
    const response = await api.createSubscription({
      ResourceAddress: publisher.address,
      EndpointUri: endpointUri,
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain(CLOSED_AFTER_HANDSHAKE);
  });
});
