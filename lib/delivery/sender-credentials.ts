import type { KeyObject } from 'node:crypto';
import type { WebhookKeys } from '../domain/webhook-keys';
import type { ClientTls, ClientTlsSource } from '../tls/client-tls';

/** What an attempt is sent with beyond its subscription: the service's TLS identity and its `v1a` key. */
export interface SenderCredentials {
  /** For https endpoints only. */
  readonly tls?: ClientTls;
  /** Undefined before the first key is made (the first subscribe makes it). */
  readonly signingKey: KeyObject | undefined;
}

/**
 * The credentials of the functions that send to consumers (deliver, and subscribe's sanity check),
 * each read once per process and refreshed on its own interval (lib/tls/client-tls.ts,
 * lib/domain/webhook-keys.ts). A read that fails throws: the attempt is retried by the queue.
 */
export class ServiceCredentials {
  constructor(
    private readonly tls: ClientTlsSource,
    private readonly keys: WebhookKeys,
  ) {}

  /** What a send to `endpointUri` at `now` needs: the TLS material only for https (plain http never waits for it). */
  async at(now: number, endpointUri: string): Promise<SenderCredentials> {
    const https = endpointUri.startsWith('https:');
    const [tls, signingKey] = await Promise.all([
      https ? this.tls.options() : undefined,
      this.keys.signingKey(now),
    ]);
    return { ...(tls ? { tls } : {}), signingKey };
  }

  /** Subscribe's: makes the first `v1a` key, or the next when due (it may seal; deliver only reads). */
  prepareToSign(now: number): Promise<void> {
    return this.keys.ensure(now);
  }
}
