import { copyFileSync, mkdtempSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/config';
import { describeFailure, postJson, probeConnection } from '../../lib/delivery/http-sender';
import { createNetworkPolicy } from '../../lib/delivery/network-policy';
import {
  CLOSED_AFTER_HANDSHAKE,
  type ClientTls,
  ClientTlsSource,
  clientTlsFrom,
  fileTlsReader,
} from '../../lib/tls/client-tls';
import { materialFrom } from '../../lib/tls/secret-tls-reader';
import { issue, makeCa } from './pki';

// Servers are Node's own https on 127.0.0.1; every certificate is made by openssl (./pki.ts).
const policy = createNetworkPolicy({ mode: 'allow-private' });
const publicOnly = createNetworkPolicy({ mode: 'public-only' });
const timeoutMs = 2000;
const userAgent = 'mtls-test/1';

const endpointCa = makeCa('endpoint CA');
const serviceCa = makeCa('service CA');
const strangerCa = makeCa('stranger CA');
const serverCert = issue(endpointCa, 'endpoint', 'server');
const serviceClient = issue(serviceCa, 'ocloud-notifications', 'client');
const strangerClient = issue(strangerCa, 'not-the-service', 'client');

const servers: https.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An endpoint that requires a client certificate signed by `trusts` (and records whose it got). */
async function endpoint(
  trusts = serviceCa.cert,
  maxVersion: 'TLSv1.2' | 'TLSv1.3' = 'TLSv1.3',
  certificate = serverCert,
) {
  const clients: string[] = [];
  const server = https.createServer(
    {
      cert: certificate.cert,
      key: certificate.key,
      ca: trusts,
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion,
    },
    (req, res) => {
      clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ''));
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    },
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/hook`, localhostUrl: `https://localhost:${port}/hook`, clients };
}

const tls = (material: Parameters<typeof clientTlsFrom>[0]): ClientTls => clientTlsFrom(material);
const withIdentity = tls({
  certificate: serviceClient.cert,
  privateKey: serviceClient.key,
  caCertificates: endpointCa.cert,
});

const post = async (url: string, clientTls: ClientTls | undefined, usePolicy = policy) =>
  describeFailure(
    await postJson(url, '{}', { timeoutMs, policy: usePolicy, userAgent, tls: clientTls }),
    timeoutMs,
  );

describe('mutual TLS to an endpoint with a private CA', () => {
  it('presents the client certificate and trusts the configured CA: delivered, by IP and by host name', async () => {
    const server = await endpoint();
    expect(await post(server.url, withIdentity)).toBeUndefined();
    expect(await post(server.localhostUrl, withIdentity)).toBeUndefined();
    expect(server.clients).toEqual(['ocloud-notifications', 'ocloud-notifications']);
  });

  it.each(['TLSv1.3', 'TLSv1.2'] as const)(
    'a missing client certificate is an attempt failure that says so (%s)',
    async (version) => {
      const server = await endpoint(serviceCa.cert, version);
      const reason = await post(server.url, tls({ caCertificates: endpointCa.cert }));
      expect(reason).toMatch(
        version === 'TLSv1.3'
          ? /^connection failed: tls: certificate required \(the endpoint refused/
          : /^connection failed: tls: handshake failure \(the endpoint refused/,
      );
      expect(server.clients).toEqual([]);
    },
  );

  it('a client certificate the endpoint does not trust: Node closes after the handshake, and the reason says so', async () => {
    const server = await endpoint();
    const reason = await post(
      server.url,
      tls({
        certificate: strangerClient.cert,
        privateKey: strangerClient.key,
        caCertificates: endpointCa.cert,
      }),
    );
    expect(reason).toBe(`connection failed: ${CLOSED_AFTER_HANDSHAKE}`);
    expect(server.clients).toEqual([]);
  });

  it('an endpoint certificate from a CA the service does not trust: tls: unknown ca, the service refusing', async () => {
    const server = await endpoint();
    const reason = await post(
      server.url,
      tls({ certificate: serviceClient.cert, privateKey: serviceClient.key }),
    );
    expect(reason).toMatch(
      /^connection failed: tls: unknown ca \(the endpoint’s certificate is not signed by a CA the service trusts\)/,
    );
    expect(server.clients).toEqual([]);
  });

  it('keeps host name verification on: a certificate for another name fails', async () => {
    const server = await endpoint(
      serviceCa.cert,
      'TLSv1.3',
      issue(endpointCa, 'elsewhere', 'server', 'DNS:elsewhere.example'),
    );
    const reason = await post(server.url, withIdentity);
    expect(reason).toMatch(/tls: host name mismatch/);
  });

  it('the network policy still refuses before any handshake', async () => {
    const server = await endpoint();
    expect(await post(server.url, withIdentity, publicOnly)).toMatch(
      /^refused by the network policy: loopback address/,
    );
    expect(await post(server.localhostUrl, withIdentity, publicOnly)).toMatch(
      /^refused by the network policy/,
    );
    expect(server.clients).toEqual([]);
  });

  it('the subscribe-time probe presents the certificate, and reports a refusal', async () => {
    const server = await endpoint();
    const probe = (clientTls: ClientTls) =>
      probeConnection(server.url, { timeoutMs, policy, tls: clientTls });
    expect(await probe(withIdentity)).toBeUndefined();
    expect(await probe(tls({ caCertificates: endpointCa.cert }))).toMatch(
      /^connection failed: tls: certificate required/,
    );
    expect(await probe(tls({ certificate: serviceClient.cert, privateKey: serviceClient.key }))).toMatch(
      /^connection failed: tls: unknown ca/,
    );
    const stranger = tls({
      certificate: strangerClient.cert,
      privateKey: strangerClient.key,
      caCertificates: endpointCa.cert,
    });
    expect(await probe(stranger)).toBe(`connection failed: ${CLOSED_AFTER_HANDSHAKE}`);
  });
});

describe('the client certificate, rotated without a redeploy', () => {
  it('is read once, then again after the refresh interval: the next delivery presents the new one', async () => {
    const server = await endpoint();
    const dir = mkdtempSync(join(tmpdir(), 'tls-rotation-'));
    const files = {
      kind: 'files' as const,
      certFile: join(dir, 'client.pem'),
      keyFile: join(dir, 'client-key.pem'),
    };
    const install = (issued: { certFile: string; keyFile: string }) => {
      copyFileSync(issued.certFile, files.certFile);
      copyFileSync(issued.keyFile, files.keyFile);
    };
    install(serviceClient);
    let now = 0;
    const caFile = join(dir, 'ca.pem');
    copyFileSync(endpointCa.certFile, caFile);
    const source = new ClientTlsSource(fileTlsReader(files, caFile), 300_000, () => now);
    const deliver = async () => post(server.url, await source.options());

    expect(await deliver()).toBeUndefined();
    const first = await source.options();
    now = 300_000; // a refresh that reads the same files keeps the context, and its connections
    await source.options();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await source.options()).toBe(first);
    const renewed = issue(serviceCa, 'ocloud-notifications-2027', 'client');
    install(renewed);
    now = 599_000;
    expect(await deliver()).toBeUndefined(); // still the certificate read last
    now = 600_000;
    await source.options(); // the refresh is read in the background: the delivery after it uses it
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await deliver()).toBeUndefined();
    expect(server.clients).toEqual([
      'ocloud-notifications',
      'ocloud-notifications',
      'ocloud-notifications-2027',
    ]);

    // A broken install keeps the last good material rather than stopping deliveries.
    copyFileSync(strangerClient.keyFile, files.keyFile);
    now = 900_000;
    await source.options();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await deliver()).toBeUndefined();
    expect(server.clients.at(-1)).toBe('ocloud-notifications-2027');
  });

  it('refuses unusable material with what is wrong and none of its contents', () => {
    expect(() => clientTlsFrom({ certificate: serviceClient.cert })).toThrow(ConfigError);
    expect(() => clientTlsFrom({ certificate: serviceClient.cert, privateKey: strangerClient.key })).toThrow(
      /client certificate or key is unusable/,
    );
    expect(() => clientTlsFrom({ caCertificates: 'not a pem' })).toThrow(/hold no PEM certificate/);
    const error = (() => {
      try {
        materialFrom(JSON.stringify({ certificate: serviceClient.cert, privateKey: 42 }));
      } catch (caught) {
        return String(caught);
      }
    })();
    expect(error).toMatch(/privateKey is not a string/);
    expect(error).not.toContain('BEGIN');
    expect(() => materialFrom('{"certificate"')).toThrow(/not a JSON object/);
    expect(materialFrom(JSON.stringify({ certificate: 'a', privateKey: 'b', caCertificates: '' }))).toEqual({
      certificate: 'a',
      privateKey: 'b',
    });
  });
});
