/**
 * The local stage's mutual TLS: on the first `npm start`, a CA and a client certificate it signs
 * under .data/tls (made by the `openssl` command), and a server certificate for 127.0.0.1 and
 * localhost that `npm run consumer -- --tls` serves. Kept across runs; delete .data/tls to make
 * new ones. docs/security.md says how to trust the CA and how this maps to a deployment.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** LOCAL_TLS_DIR moves it (the tests' runs of npm start keep theirs in a temporary directory). */
export const TLS_DIR = process.env.LOCAL_TLS_DIR || fileURLToPath(new URL('../.data/tls', import.meta.url));
export const LOCAL_TLS = {
  ca: join(TLS_DIR, 'ca.pem'),
  caKey: join(TLS_DIR, 'ca-key.pem'),
  client: join(TLS_DIR, 'client.pem'),
  clientKey: join(TLS_DIR, 'client-key.pem'),
  consumer: join(TLS_DIR, 'consumer.pem'),
  consumerKey: join(TLS_DIR, 'consumer-key.pem'),
};

/**
 * A new P-256 key and a certificate for `name` (OpenSSL 3's `req -x509`), signed by itself or, with
 * `byCa`, by the local CA; each of `extensions` is added as it is.
 */
function certificate(
  name: string,
  out: string,
  keyOut: string,
  days: number,
  extensions: string[],
  byCa = true,
) {
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyOut];
  const subject = ['-x509', '-subj', `/CN=${name}`, '-days', String(days), '-out', out];
  const signer = byCa ? ['-CA', LOCAL_TLS.ca, '-CAkey', LOCAL_TLS.caKey] : [];
  const added = extensions.flatMap((extension) => ['-addext', extension]);
  execFileSync('openssl', ['req', ...newKey, ...subject, ...signer, ...added], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/**
 * Makes what is missing; answers the environment `serverless offline`'s functions read (lib/config.ts),
 * or nothing (with why) when `openssl` is not installed: deliveries then present no client certificate.
 */
export function ensureLocalTls(): { env: Record<string, string>; note: string } {
  try {
    mkdirSync(TLS_DIR, { recursive: true, mode: 0o700 });
    if (!existsSync(LOCAL_TLS.ca)) {
      const ca = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'];
      certificate('ocloud-notifications local CA', LOCAL_TLS.ca, LOCAL_TLS.caKey, 3650, ca, false);
    }
    // `req -x509` adds the CA's own extensions (openssl.cnf's v3_ca) unless told otherwise.
    const leaf = 'basicConstraints=CA:FALSE';
    if (!existsSync(LOCAL_TLS.client)) {
      const extensions = [leaf, 'extendedKeyUsage=clientAuth'];
      certificate('ocloud-notifications', LOCAL_TLS.client, LOCAL_TLS.clientKey, 825, extensions);
    }
    if (!existsSync(LOCAL_TLS.consumer)) {
      const extensions = [leaf, 'subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth'];
      certificate('localhost', LOCAL_TLS.consumer, LOCAL_TLS.consumerKey, 825, extensions);
    }
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'openssl is not installed' : String(error);
    return { env: {}, note: `No client certificate for https endpoints (${reason}).` };
  }
  return {
    env: {
      ENDPOINT_CLIENT_CERT_FILE: process.env.ENDPOINT_CLIENT_CERT_FILE || LOCAL_TLS.client,
      ENDPOINT_CLIENT_KEY_FILE: process.env.ENDPOINT_CLIENT_KEY_FILE || LOCAL_TLS.clientKey,
      ENDPOINT_CA_FILE: process.env.ENDPOINT_CA_FILE || LOCAL_TLS.ca,
    },
    note: `Client certificate for https endpoints: ${LOCAL_TLS.client}, issued by the local CA ${LOCAL_TLS.ca} (endpoints trusted: Node's CAs and ${process.env.ENDPOINT_CA_FILE || LOCAL_TLS.ca}).`,
  };
}
