import type { NotificationStore, Subscription } from '../domain/model';
import type { AcceptedEvent, DeliveryPort } from '../domain/ports';
import { postJson } from './http-sender';
import type { NetworkPolicy } from './network-policy';
import { webhookHeaders, webhookId } from './webhook';

/**
 * Delivers in the request that accepted the event: one concurrent POST per covering subscription,
 * one attempt each. A stand-in behind the DeliveryPort until queued delivery with retries exists.
 */
export class DirectDelivery implements DeliveryPort {
  constructor(
    private readonly store: NotificationStore,
    private readonly policy: NetworkPolicy,
    private readonly timeoutMs: number,
    private readonly userAgent: string,
  ) {}

  async eventAccepted(accepted: AcceptedEvent): Promise<void> {
    const sends: Promise<unknown>[] = [];
    for await (const page of this.store.subscriptionsCovering(accepted.resourceAddress)) {
      for (const subscription of page) sends.push(this.send(subscription, accepted));
    }
    await Promise.allSettled(sends);
  }

  async currentStatesFor(subscription: Subscription, states: readonly AcceptedEvent[]): Promise<void> {
    await Promise.allSettled(states.map((state) => this.send(subscription, state)));
  }

  private send(subscription: Subscription, accepted: AcceptedEvent) {
    return postJson(subscription.endpointUri, JSON.stringify(accepted.event), {
      headers: webhookHeaders(webhookId(subscription.id, accepted.publisherId, accepted.event)),
      timeoutMs: this.timeoutMs,
      policy: this.policy,
      userAgent: this.userAgent,
    });
  }
}
