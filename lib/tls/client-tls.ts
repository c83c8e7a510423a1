import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { ConfigError, type EndpointTlsSource } from '../config';
import { logger } from '../logger';

/**
 * What an https delivery is made with beyond Node's defaults: the service's client certificate
 * (mutual TLS) and the certificate authorities that may sign an endpoint's certificate. Node's
 * `tls` does all of the TLS; host name verification is always on (there is no switch to turn it off).
 */
export interface ClientTls {
  /**
   * Node's context of the client certificate (when one is configured) and of the trusted CAs (Node's
   * store plus the configured private CAs), built once per reading of the material.
   */
  readonly secureContext: SecureContext;
  readonly hasClientCertificate: boolean;
}

/** The client identity and private CAs as an operator stores them (Secrets Manager, or files locally). */
export interface ClientTlsMaterial {
  readonly certificate?: string;
  readonly privateKey?: string;
  readonly caCertificates?: string;
}

/** Reads the material once; called again when the refresh interval has passed. */
export type ClientTlsReader = () => Promise<ClientTlsMaterial>;

/**
 * The TLS options of deliveries, read once per cold start and again at most every
 * `refreshSeconds` (an operator's rotation takes effect within that, with no redeploy). A failed
 * refresh keeps the material it had (and is tried again at the next refresh); a failed first read
 * fails the delivery, which the queue retries. Nothing here is ever logged.
 */
export class ClientTlsSource {
  private current: Promise<ClientTls> | undefined;
  private readAt = 0;
  /** What the current context was built from: an unchanged reading keeps it (and its pooled connections). */
  private built: { material: string; tls: ClientTls } | undefined;

  constructor(
    private readonly read: ClientTlsReader,
    private readonly refreshMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  options(): Promise<ClientTls> {
    const now = this.clock();
    if (!this.current) {
      this.readAt = now;
      this.current = this.load();
      this.current.catch(() => {
        this.current = undefined;
      });
    } else if (now - this.readAt >= this.refreshMs) {
      this.readAt = now;
      const previous = this.current;
      const next = this.load();
      // The refreshed material replaces the old only once it has been read and checked.
      next.then(
        () => {
          if (this.current === previous) this.current = next;
        },
        (error: unknown) =>
          // The reason names what is wrong (a path, a mismatch), never the material.
          logger.warn('could not read the endpoint TLS material again; keeping what was read before', {
            reason: error instanceof Error ? error.message : String(error),
          }),
      );
    }
    return this.current;
  }

  // Building a context parses Node's whole CA store (tens of ms on a cold start), so a refresh that
  // read the same material reuses the context instead.
  private async load(): Promise<ClientTls> {
    const material = await this.read();
    const text = JSON.stringify([material.certificate, material.privateKey, material.caCertificates]);
    if (this.built?.material === text) return this.built.tls;
    const tls = clientTlsFrom(material);
    this.built = { material: text, tls };
    return tls;
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Checks the material and turns it into Node's options; an error names what is wrong, never its contents. */
export function clientTlsFrom(material: ClientTlsMaterial): ClientTls {
  const { certificate, privateKey, caCertificates } = material;
  if (Boolean(certificate) !== Boolean(privateKey)) {
    throw new ConfigError('the endpoint TLS client certificate and private key must be given together');
  }
  const privateCas = caCertificates ? certificatesIn(caCertificates, 'the endpoint CA certificates') : [];
  if (certificate) certificatesIn(certificate, 'the endpoint TLS client certificate');
  try {
    return {
      secureContext: createSecureContext({
        ...(certificate && privateKey ? { cert: certificate, key: privateKey } : {}),
        ...(privateCas.length > 0 ? { ca: [...rootCertificates, ...privateCas] } : {}),
      }),
      hasClientCertificate: Boolean(certificate),
    };
  } catch (error) {
    // Node's message names the problem (a key that does not match the certificate, say), not the PEM.
    throw new ConfigError(
      `the endpoint TLS client certificate or key is unusable: ${(error as Error).message}`,
    );
  }
}

function certificatesIn(pem: string, what: string): string[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new ConfigError(`${what} hold no PEM certificate`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw new ConfigError(`${what} hold a PEM block that is not an X.509 certificate`);
    }
  }
  return blocks;
}

/** The local stage's reader: PEM files (`npm start` makes the client certificate under .data/tls). */
export function fileTlsReader(
  files: Extract<EndpointTlsSource, { kind: 'files' }>,
  caFile: string | undefined,
) {
  return async (): Promise<ClientTlsMaterial> => {
    const [certificate, privateKey, caCertificates] = await Promise.all([
      files.certFile ? readFile(files.certFile, 'utf8') : undefined,
      files.keyFile ? readFile(files.keyFile, 'utf8') : undefined,
      caFile ? readFile(caFile, 'utf8') : undefined,
    ]);
    return {
      ...(certificate ? { certificate } : {}),
      ...(privateKey ? { privateKey } : {}),
      ...(caCertificates ? { caCertificates } : {}),
    };
  };
}

/**
 * Why a TLS handshake failed, as a consumer reads it in GET …/deliveries: `tls: <what>` and, where
 * it helps, whose side refused. Undefined for an error that is not TLS's.
 */
export function describeTlsError(error: NodeJS.ErrnoException): string | undefined {
  const code = error.code ?? '';
  // An alert the endpoint sent: it refused the handshake. Node names it in the code, or (as EPROTO,
  // when it arrives while the request is written) in OpenSSL's message: "sslv3 alert …" in Node
  // 20's OpenSSL, "ssl/tls alert …" in Node 24's (the functions' runtime).
  const alert =
    /^ERR_SSL_(?:TLSV13|TLSV1|SSLV3|SSL\/TLS)_ALERT_(.+)$/.exec(code)?.[1] ??
    /(?:sslv3|tlsv1|tlsv13|ssl\/tls) alert ([a-z ]+?)(?::|$)/
      .exec(error.message)?.[1]
      ?.toUpperCase()
      .replaceAll(' ', '_');
  if (alert) {
    const name = alert.toLowerCase().replaceAll('_', ' ');
    const why = ENDPOINT_ALERTS[alert];
    return `tls: ${name} (the endpoint refused the handshake${why ? `: ${why}` : ''})`;
  }
  const ours = SERVICE_CHECKS[code];
  if (ours) return `tls: ${ours} (${code})`;
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return `tls: ${code}: ${error.message}`;
  return undefined;
}

const ENDPOINT_ALERTS: Readonly<Record<string, string>> = {
  CERTIFICATE_REQUIRED: 'it requires a client certificate and the service has none configured',
  UNKNOWN_CA: 'it does not trust the CA of the service’s client certificate',
  BAD_CERTIFICATE: 'it refused the service’s client certificate',
  CERTIFICATE_EXPIRED: 'the service’s client certificate has expired',
  CERTIFICATE_REVOKED: 'the service’s client certificate is revoked',
  HANDSHAKE_FAILURE: 'no common parameters, or a client certificate it requires is missing',
};

/**
 * An endpoint that closes the connection right after the handshake, before answering: what Node's
 * own https server (and others that check the client certificate after the handshake) does with a
 * client certificate it does not trust; it sends no alert.
 */
export const CLOSED_AFTER_HANDSHAKE =
  'tls: connection closed after the handshake, before any answer (the endpoint may not trust the service’s client certificate)';

/** The service's own checks of the endpoint's certificate. */
const SERVICE_CHECKS: Readonly<Record<string, string>> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    'unknown ca (the endpoint’s certificate is not signed by a CA the service trusts)',
  UNABLE_TO_GET_ISSUER_CERT:
    'unknown ca (the endpoint’s certificate is not signed by a CA the service trusts)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    'unknown ca (the endpoint’s certificate is not signed by a CA the service trusts)',
  SELF_SIGNED_CERT_IN_CHAIN: 'unknown ca (the endpoint’s chain ends at a CA the service does not trust)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'unknown ca (the endpoint’s certificate is self-signed)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'host name mismatch (the endpoint’s certificate does not name its host)',
  CERT_HAS_EXPIRED: 'certificate expired (the endpoint’s certificate)',
  CERT_NOT_YET_VALID: 'certificate not yet valid (the endpoint’s certificate)',
  CERT_REVOKED: 'certificate revoked (the endpoint’s certificate)',
};
