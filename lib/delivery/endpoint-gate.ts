import type { NotificationEvent } from '../domain/event';
import type { EndpointGate } from '../domain/ports';
import { BadRequestError } from '../errors';
import { logger } from '../logger';
import { childOf, currentTrace, formatTraceparent } from '../tracing';
import { describeFailure, postJson, probeConnection } from './http-sender';
import { EndpointForbiddenError, type NetworkPolicy, resolveAndCheck } from './network-policy';
import type { ServiceCredentials } from './sender-credentials';
import { webhookHeaders, webhookId } from './webhook';

/** The subscribe-time view of consumer endpoints: the network policy, and the sanity-check POST. */
export class HttpEndpointGate implements EndpointGate {
  constructor(
    private readonly policy: NetworkPolicy,
    readonly timeoutMs: number,
    private readonly userAgent: string,
    private readonly credentials: ServiceCredentials,
  ) {}

  async assertAllowed(endpoint: URL, deadline: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), remaining(deadline));
    });
    try {
      const outcome = await Promise.race([resolveAndCheck(endpoint.hostname, this.policy), late]);
      if (outcome === 'late') {
        throw new BadRequestError(
          `EndpointUri host ${endpoint.hostname} could not be resolved within ${this.timeoutMs} ms`,
        );
      }
    } catch (error) {
      if (error instanceof BadRequestError) throw error;
      if (error instanceof EndpointForbiddenError) {
        throw new BadRequestError(
          `EndpointUri host ${endpoint.hostname} is not allowed: ${error.message}; the delivery network policy refuses it`,
        );
      }
      throw new BadRequestError(`EndpointUri host ${endpoint.hostname} cannot be resolved`);
    } finally {
      clearTimeout(timer);
    }
  }

  async sendInitial(
    endpointUri: string,
    event: NotificationEvent,
    secrets: readonly string[],
    deadline: number,
  ): Promise<string | undefined> {
    const body = JSON.stringify(event);
    const now = Date.now();
    this.prepareToSign(now);
    const { tls, signingKey } = await this.credentials.at(now, endpointUri);
    const outcome = await postJson(endpointUri, body, {
      headers: {
        ...webhookHeaders(webhookId(endpointUri, 'initial', event), body, secrets, now, signingKey),
        // In the trace of the subscribe that sends it (lib/tracing.ts).
        traceparent: formatTraceparent(childOf(currentTrace())),
      },
      timeoutMs: remaining(deadline),
      policy: this.policy,
      userAgent: this.userAgent,
      tls,
    });
    return describeFailure(outcome, this.timeoutMs);
  }

  async probe(endpointUri: string, deadline: number): Promise<string | undefined> {
    const now = Date.now();
    this.prepareToSign(now);
    const { tls } = await this.credentials.at(now, endpointUri);
    return probeConnection(endpointUri, { timeoutMs: remaining(deadline), policy: this.policy, tls });
  }

  /**
   * Makes the first `v1a` key, or the next when due, beside the subscribe rather than out of the
   * endpoint's time (a stage's very first initial notification may go out before its first key
   * exists: it then carries `v1` only). A failure is logged; the next subscribe tries again.
   */
  private prepareToSign(now: number): void {
    this.credentials
      .prepareToSign(now)
      .catch((error: unknown) =>
        logger.warn('could not make the next v1a signing key; the next subscribe tries again', { error }),
      );
  }
}

function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
