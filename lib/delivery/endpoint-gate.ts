import type { NotificationEvent } from '../domain/event';
import type { EndpointGate } from '../domain/ports';
import { BadRequestError } from '../errors';
import { postJson, type SendOutcome } from './http-sender';
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
}

/** Undefined for a 2xx; otherwise a short reason a person can act on. */
export function describeFailure(outcome: SendOutcome, timeoutMs: number): string | undefined {
  switch (outcome.kind) {
    case 'response':
      return outcome.status >= 200 && outcome.status < 300 ? undefined : `it answered HTTP ${outcome.status}`;
    case 'timeout':
      return `no answer within ${timeoutMs} ms`;
    case 'network-error':
      return `connection failed: ${outcome.reason}`;
    case 'forbidden':
      return `refused by the network policy: ${outcome.reason}`;
  }
}
