import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Certificates made by Debian's `openssl`, not by the code under test: a CA, and certificates it
 * signs (P-256 keys). Each call works in a temporary directory of its own.
 */
export interface Issued {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
  readonly keyFile: string;
}

const dir = mkdtempSync(join(tmpdir(), 'pki-'));
let serial = 0;

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeCa(name: string): Issued {
  const base = `${name}-${++serial}`;
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${base}.key`,
    '-out',
    `${base}.pem`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  return read(base);
}

/** A leaf signed by `ca`: a server's (for `names`, SANs) or a client's. */
export function issue(
  ca: Issued,
  name: string,
  use: 'server' | 'client',
  names = 'IP:127.0.0.1,DNS:localhost',
): Issued {
  const base = `${name}-${++serial}`;
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
    `${base}.key`,
    '-out',
    `${base}.csr`,
  );
  const ext =
    use === 'server'
      ? `subjectAltName=${names}\nextendedKeyUsage=serverAuth\n`
      : 'extendedKeyUsage=clientAuth\n';
  writeFileSync(join(dir, `${base}.ext`), ext);
  openssl(
    'x509',
    '-req',
    '-in',
    `${base}.csr`,
    '-CA',
    ca.certFile,
    '-CAkey',
    ca.keyFile,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${base}.ext`,
    '-out',
    `${base}.pem`,
  );
  return read(base);
}

function read(base: string): Issued {
  const certFile = join(dir, `${base}.pem`);
  const keyFile = join(dir, `${base}.key`);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
}
