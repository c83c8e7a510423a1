/**
 * The local stage's mutual TLS: on the first `npm start`, a CA and a client certificate it signs
 * under .data/tls (made by the `openssl` command), and a server certificate for 127.0.0.1 and
 * localhost that `npm run consumer -- --tls` serves. Kept across runs; delete .data/tls to make
 * new ones. docs/security.md says how to trust the CA and how this maps to a deployment.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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

function openssl(...args: string[]) {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function issue(name: string, extensions: string, out: string, keyOut: string) {
  const csr = `${out}.csr`;
  const ext = `${out}.ext`;
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    keyOut,
    '-out',
    csr,
  );
  writeFileSync(ext, extensions);
  openssl(
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    LOCAL_TLS.ca,
    '-CAkey',
    LOCAL_TLS.caKey,
    '-CAcreateserial',
    '-days',
    '825',
    '-extfile',
    ext,
    '-out',
    out,
  );
  rmSync(csr);
  rmSync(ext);
}

/**
 * Makes what is missing; answers the environment `serverless offline`'s functions read (lib/config.ts),
 * or nothing (with why) when `openssl` is not installed: deliveries then present no client certificate.
 */
export function ensureLocalTls(): { env: Record<string, string>; note: string } {
  try {
    mkdirSync(TLS_DIR, { recursive: true, mode: 0o700 });
    if (!existsSync(LOCAL_TLS.ca)) {
      openssl(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '3650',
        '-subj',
        '/CN=ocloud-notifications local CA',
        '-keyout',
        LOCAL_TLS.caKey,
        '-out',
        LOCAL_TLS.ca,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      );
    }
    if (!existsSync(LOCAL_TLS.client)) {
      issue('ocloud-notifications', 'extendedKeyUsage=clientAuth\n', LOCAL_TLS.client, LOCAL_TLS.clientKey);
    }
    if (!existsSync(LOCAL_TLS.consumer)) {
      issue(
        'localhost',
        'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
        LOCAL_TLS.consumer,
        LOCAL_TLS.consumerKey,
      );
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
