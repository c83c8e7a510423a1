import { parseTime } from '../domain/event';
import type { NotificationStore, Subscription } from '../domain/model';
import type { AcceptedEvent, DeliveryPort } from '../domain/ports';
import { logger } from '../logger';
import type { QueuePort } from '../queue/queue-port';
import { deliveryMessage, fanOutMessage } from './messages';

/** Outlives the longest retry window allowed (14 days): see DeliveryConfig. */
const INITIAL_CURSOR_TTL_SECONDS = 15 * 24 * 3600;

/**
 * The API's side of delivery: publishing enqueues one fan-out message, whatever the number of
 * subscribers, so it answers in the time of one queue call; a new subscription's other current
 * states go straight to the delivery queue. Either throws a ServiceUnavailableError when the queue
 * cannot take them.
 */
export class QueuedDelivery implements DeliveryPort {
  constructor(
    private readonly queue: QueuePort,
    private readonly store: NotificationStore,
    private readonly clock: () => number = Date.now,
  ) {}

  async eventAccepted(accepted: AcceptedEvent): Promise<void> {
    await this.queue.send('fan-out', [{ body: JSON.stringify(fanOutMessage(accepted)) }]);
  }

  async currentStatesFor(subscription: Subscription, states: readonly AcceptedEvent[]): Promise<void> {
    const now = new Date(this.clock());
    await this.queue.send(
      'delivery',
      states.map((state) => ({ body: JSON.stringify(deliveryMessage(subscription, state, now)) })),
    );
  }

  async initialDelivered(subscription: Subscription, accepted: AcceptedEvent): Promise<void> {
    const now = this.clock();
    try {
      // No attempt holds a lease under this owner, so only the forward-only move of the cursor applies.
      await this.store.completeDelivery({
        subscriptionId: subscription.id,
        resourceAddress: accepted.resourceAddress,
        timeKey: parseTime(accepted.event.time),
        eventKey: `${accepted.event.source}#${accepted.event.id}`,
        leaseOwner: 'initial-notification',
        now,
        leaseUntil: now,
        expiresAt: Math.ceil(now / 1000) + INITIAL_CURSOR_TTL_SECONDS,
      });
    } catch (error) {
      // Only an optimisation: without it the consumer may see the event twice, which it tolerates.
      logger.warn('could not record the initial notification as delivered', { error });
    }
  }
}
