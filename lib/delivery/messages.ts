import { type NotificationEvent, wireEvent } from '../domain/event';
import type { PageKey, Subscription } from '../domain/model';
import type { AcceptedEvent } from '../domain/ports';

/**
 * The bodies of the queue messages. They carry the event itself (at most 64 KiB, well under the
 * SQS limit of 256 KiB), so an attempt reads no event from the table.
 */

/** On the fan-out queue: one per accepted event, and one per continuation of a long fan-out. */
export interface FanOutMessage extends AcceptedEvent {
  readonly kind: 'fan-out';
  /** Where an earlier invocation stopped: this ancestor of the address, from this page key. */
  readonly continuation?: FanOutContinuation;
}

export interface FanOutContinuation {
  readonly ancestor: string;
  /** Absent: from the ancestor's first subscription. */
  readonly startKey?: PageKey;
}

/** On the delivery queue: one per (event, subscription). */
export interface DeliveryMessage extends AcceptedEvent {
  readonly kind: 'delivery';
  readonly subscriptionId: string;
  /**
   * Which subscription of that id: a consumer that deletes all and subscribes again gets the same
   * id, and what was queued for the retired subscription is not for the new one. Absent in
   * messages queued before it was added: those go to whichever subscription has the id.
   */
  readonly subscriptionCreatedAt?: string;
  /** When delivery to this subscription began: the retry window is counted from here. */
  readonly enqueuedAt: string;
  /**
   * Attempts made by the earlier messages of this notification: an attempt that only waits for
   * another attempt's lease sends this message again rather than hiding it, so that waiting never
   * counts as a receive (SQS's redrive would dead-letter it without a reason), and carries its
   * receives over for the back-off. Absent: none.
   */
  readonly attemptsMade?: number;
  /**
   * A dead letter put back by a redrive (kept when a lease wait sends it again): if it is dropped
   * rather than delivered, the deliver function says why, since the person who redrove it waits
   * for it.
   */
  readonly redriven?: true;
}

/** On the dead-letter queue: what could not be delivered, to whom, and why. */
export interface DeadLetter {
  readonly kind: 'dead-letter';
  readonly reason: string;
  readonly subscriptionId: string;
  /** Tells the subscription's incarnations apart (one made again has the same id). */
  readonly subscriptionCreatedAt: string;
  readonly endpointUri: string | undefined;
  readonly resourceAddress: string;
  readonly publisherId: string;
  readonly webhookId: string;
  readonly event: NotificationEvent;
  readonly acceptedAt: string;
  readonly enqueuedAt: string;
  /** Receives of the delivery message, the last one included, and the `attemptsMade` before it. */
  readonly attempts: number;
  readonly deadLetteredAt: string;
}

export function fanOutMessage(accepted: AcceptedEvent, continuation?: FanOutContinuation): FanOutMessage {
  return { kind: 'fan-out', ...acceptedPart(accepted), ...(continuation ? { continuation } : {}) };
}

export function deliveryMessage(
  subscription: Subscription,
  accepted: AcceptedEvent,
  now: Date,
): DeliveryMessage {
  return {
    kind: 'delivery',
    subscriptionId: subscription.id,
    subscriptionCreatedAt: subscription.createdAt,
    ...acceptedPart(accepted),
    enqueuedAt: now.toISOString(),
  };
}

export class MalformedMessageError extends Error {}

export function parseFanOutMessage(body: string): FanOutMessage {
  const input = parseObject(body);
  if (input.kind !== 'fan-out') throw new MalformedMessageError('not a fan-out message');
  const continuation = input.continuation;
  if (continuation === undefined) return { kind: 'fan-out', ...parseAccepted(input) };
  if (typeof continuation !== 'object' || continuation === null) {
    throw new MalformedMessageError('continuation is not an object');
  }
  const c = continuation as Record<string, unknown>;
  const startKey = c.startKey;
  if (
    startKey !== undefined &&
    (typeof startKey !== 'object' || startKey === null || Array.isArray(startKey))
  ) {
    throw new MalformedMessageError('continuation.startKey is not an object');
  }
  const ancestor = text(c, 'ancestor');
  return {
    kind: 'fan-out',
    ...parseAccepted(input),
    continuation: startKey === undefined ? { ancestor } : { ancestor, startKey: startKey as PageKey },
  };
}

/**
 * A delivery message, or a dead letter put back on the delivery queue by a redrive (SQS's
 * StartMessageMoveTask, `npm run dead-letters -- --redrive`): it is delivered again, with a new
 * retry window counted from `redrivenAt`, its first receive there.
 */
export function parseDeliveryMessage(body: string, redrivenAt: Date = new Date()): DeliveryMessage {
  const input = parseObject(body);
  if (input.kind !== 'delivery' && input.kind !== 'dead-letter') {
    throw new MalformedMessageError('not a delivery message');
  }
  const createdAt = input.subscriptionCreatedAt;
  const subscription = {
    subscriptionId: text(input, 'subscriptionId'),
    ...(typeof createdAt === 'string' ? { subscriptionCreatedAt: createdAt } : {}),
  };
  if (input.kind === 'dead-letter') {
    // A new window, and no attempts made in it yet.
    return {
      kind: 'delivery',
      ...subscription,
      ...parseAccepted(input),
      enqueuedAt: redrivenAt.toISOString(),
      redriven: true,
    };
  }
  const attemptsMade = input.attemptsMade;
  if (attemptsMade !== undefined && !(Number.isSafeInteger(attemptsMade) && Number(attemptsMade) >= 0)) {
    throw new MalformedMessageError('attemptsMade is not a count');
  }
  return {
    kind: 'delivery',
    ...subscription,
    ...parseAccepted(input),
    enqueuedAt: text(input, 'enqueuedAt'),
    ...(attemptsMade ? { attemptsMade: Number(attemptsMade) } : {}),
    ...(input.redriven === true ? { redriven: true } : {}),
  };
}

function acceptedPart(accepted: AcceptedEvent): AcceptedEvent {
  return {
    publisherId: accepted.publisherId,
    resourceAddress: accepted.resourceAddress,
    event: accepted.event,
    acceptedAt: accepted.acceptedAt,
  };
}

// The event was validated when it was accepted; here only its shape is checked, to fail loudly on
// a message some other producer put on the queue.
function parseAccepted(input: Record<string, unknown>): AcceptedEvent {
  const event = input.event;
  if (typeof event !== 'object' || event === null) throw new MalformedMessageError('event is missing');
  const e = event as Record<string, unknown>;
  for (const member of ['id', 'source', 'time']) text(e, member);
  const data = e.data as { values?: unknown } | null | undefined;
  if (typeof data !== 'object' || data === null || !Array.isArray(data.values)) {
    throw new MalformedMessageError('event.data.values is not an array');
  }
  return {
    publisherId: text(input, 'publisherId'),
    resourceAddress: text(input, 'resourceAddress'),
    // Messages queued before the wire form was the rule are delivered in it.
    event: wireEvent(event as NotificationEvent),
    acceptedAt: text(input, 'acceptedAt'),
  };
}

function parseObject(body: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new MalformedMessageError('the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedMessageError('the body is not a JSON object');
  }
  return value as Record<string, unknown>;
}

function text(input: Record<string, unknown>, member: string): string {
  const value = input[member];
  if (typeof value !== 'string' || value === '') throw new MalformedMessageError(`${member} is missing`);
  return value;
}
