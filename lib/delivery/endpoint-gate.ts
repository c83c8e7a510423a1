import type { NotificationEvent } from '../domain/event';
import type { EndpointGate } from '../domain/ports';
import { BadRequestError } from '../errors';
import { describeFailure, postJson, probeConnection } from './http-sender';
import { EndpointForbiddenError, type NetworkPolicy, resolveAndCheck } from './network-policy';
import { webhookHeaders, webhookId } from './webhook';

/** The subscribe-time view of consumer endpoints: the network policy, and the sanity-check POST. */
export class HttpEndpointGate implements EndpointGate {
  constructor(
    private readonly policy: NetworkPolicy,
    readonly timeoutMs: number,
    private readonly userAgent: string,
  ) {}

  async assertAllowed(endpoint: URL): Promise<void> {
    try {
      await resolveAndCheck(endpoint.hostname, this.policy);
    } catch (error) {
      if (error instanceof EndpointForbiddenError) {
        throw new BadRequestError(
          `EndpointUri host ${endpoint.hostname} is not allowed: ${error.message}; the delivery network policy refuses it`,
        );
      }
      throw new BadRequestError(`EndpointUri host ${endpoint.hostname} cannot be resolved`);
    }
  }

  async sendInitial(
    endpointUri: string,
    event: NotificationEvent,
    secrets: readonly string[],
  ): Promise<string | undefined> {
    const body = JSON.stringify(event);
    const outcome = await postJson(endpointUri, body, {
      headers: webhookHeaders(webhookId(endpointUri, 'initial', event), body, secrets),
      timeoutMs: this.timeoutMs,
      policy: this.policy,
      userAgent: this.userAgent,
    });
    return describeFailure(outcome, this.timeoutMs);
  }

  probe(endpointUri: string): Promise<string | undefined> {
    return probeConnection(endpointUri, { timeoutMs: this.timeoutMs, policy: this.policy });
  }
}
