import type { Subscription } from '../domain/model';
import type { AcceptedEvent, DeliveryPort } from '../domain/ports';
import type { QueuePort } from '../queue/queue-port';
import { deliveryMessage, fanOutMessage } from './messages';

/**
 * The API's side of delivery: publishing enqueues one fan-out message, whatever the number of
 * subscribers, so it answers in the time of one queue call; a new subscription's other current
 * states go straight to the delivery queue. Either throws a ServiceUnavailableError when the queue
 * cannot take them.
 */
export class QueuedDelivery implements DeliveryPort {
  constructor(
    private readonly queue: QueuePort,
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
}
