import { fanOutMessage, packDeliveries } from '../delivery/messages';
import type { Subscription } from '../domain/model';
import type { AcceptedEvent, DeliveryPort } from '../domain/ports';
import { currentTrace, formatTraceparent } from '../tracing';
import type { QueuePort } from './queue-port';

/**
 * The API's side of delivery (the domain's DeliveryPort, done by queueing): publishing enqueues
 * one fan-out message, whatever the number of subscribers, so it answers in the time of one queue
 * call; a new subscription's other current states go straight to the delivery queue, packed.
 * Either throws a ServiceUnavailableError when the queue cannot take them. The messages' shapes are
 * delivery's (lib/delivery/messages.ts), which fan-out and deliver write and read too. Each carries
 * the trace of the request that queued it (`currentTrace`): an event its `POST …/events`'s, a
 * current state its subscribe's or redrive's.
 */
export class QueuedDelivery implements DeliveryPort {
  constructor(
    private readonly queue: QueuePort,
    private readonly clock: () => number = Date.now,
  ) {}

  async eventAccepted(accepted: AcceptedEvent): Promise<void> {
    const traceparent = formatTraceparent(currentTrace());
    await this.queue.send('fan-out', [{ body: JSON.stringify(fanOutMessage({ ...accepted, traceparent })) }]);
  }

  async currentStatesFor(subscription: Subscription, states: readonly AcceptedEvent[]): Promise<void> {
    const enqueuedAt = new Date(this.clock());
    const traceparent = formatTraceparent(currentTrace());
    const packs = packDeliveries(
      states.map((state) => ({ subscription, accepted: { ...state, traceparent }, enqueuedAt })),
    );
    await this.queue.send(
      'delivery',
      packs.map((body) => ({ body })),
    );
  }
}
