import { type NotificationEvent, wireEvent } from '../domain/event';
import type { PagePosition, Subscription } from '../domain/model';
import type { AcceptedEvent } from '../domain/ports';
import { MalformedMessageError } from '../queue/unreadable-message';
import { parseTraceparent, type TraceContext, traceFromIdentity } from '../tracing';

/**
 * The bodies of the queue messages. They carry the event itself (at most 64 KiB), so an attempt
 * reads no event from the table, and the notification's trace.
 */

/**
 * An accepted event on its way to delivery, and its trace: the W3C `traceparent` of the request that
 * accepted it (its `POST …/events`), or of the subscribe or redrive that queued a current state
 * (lib/tracing.ts). Absent in messages queued before traces were carried: the deliver function then
 * makes one from the event (`notificationTrace`).
 */
export interface TracedEvent extends AcceptedEvent {
  readonly traceparent?: string;
}

/** On the fan-out queue: one per accepted event, and one per continuation of a long fan-out. */
export interface FanOutMessage extends TracedEvent {
  readonly kind: 'fan-out';
  /** Where an earlier invocation stopped: this ancestor of the address, from this page key. */
  readonly continuation?: FanOutContinuation;
}

export interface FanOutContinuation {
  readonly ancestor: string;
  /** Absent: from the ancestor's first subscription. */
  readonly startKey?: PagePosition;
}

/**
 * On the delivery queue: one (event, subscription) — a notification a pack sent on by itself (it
 * waits for a retry or a lease), a new subscription's current state, a redriven dead letter.
 */
export interface DeliveryMessage extends TracedEvent {
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

/**
 * On the delivery queue: what one fan-out invocation enqueued, many notifications to one message
 * (`packDeliveries`). Each event is written once, however many of the pack's subscriptions it goes
 * to. The deliver function attempts them all at once; one that must be tried again later leaves
 * the pack as a `DeliveryMessage` of its own, with its own delay.
 */
export interface DeliveryPack {
  readonly kind: 'deliveries';
  readonly events: readonly PackedEvent[];
  readonly deliveries: readonly PackedDelivery[];
}

/** An accepted event, and when delivery of it began (the notifications' retry windows start here). */
export interface PackedEvent extends TracedEvent {
  readonly enqueuedAt: string;
}

export interface PackedDelivery {
  readonly subscriptionId: string;
  readonly subscriptionCreatedAt: string;
  /** Its event: an index into the pack's `events`. */
  readonly event: number;
}

/**
 * Notifications a pack carries at most. A storm's fan-out batch (ten events with a subscriber or
 * two each) is about 20: one pack. A deliver invocation takes up to 10 packs and attempts them all
 * at once, so this bounds its POSTs in flight at 250 and its store work at about 500 writes (a
 * lease and a completion each): its share of a table's write rate stays well within its 30 s
 * time-out when many invocations share it (a cold on-demand table serves about 4,000 writes a
 * second; DynamoDB Local under `npm start` far fewer: with 100 a pack, deliver invocations of 1,000
 * notifications were seen to run past 30 s). A 1,000,000-subscriber event is 40,000 packs, 4,000
 * deliver invocations instead of 100,000 (docs/delivery.md).
 */
export const PACK_MAX_DELIVERIES = 25;
/**
 * A pack's body at most: a tenth of the 6 MB a Lambda invocation's event may hold (beside the
 * SQS record's other members), so that a batch of 10 packs always fits one invocation, and a
 * quarter of SQS's 1 MiB message. SQS bills each 64 KiB of a request as one request, so larger
 * packs would save no request per notification.
 */
export const PACK_MAX_BYTES = 256 * 1024;

/** One notification for a pack: a subscription and the event it is for. */
export interface PackEntry {
  readonly subscription: Pick<Subscription, 'id' | 'createdAt'>;
  readonly accepted: TracedEvent;
  /** When delivery of `accepted` began: the same for every entry of the same `accepted`. */
  readonly enqueuedAt: Date;
}

/**
 * Fills packs one notification at a time, each within PACK_MAX_DELIVERIES and PACK_MAX_BYTES:
 * `add` answers whether the entry fitted the open pack (else `close` it and add it again).
 */
export class PackBuilder {
  private readonly events: PackedEvent[] = [];
  private readonly eventIndex = new Map<TracedEvent, number>();
  private readonly deliveries: PackedDelivery[] = [];
  private bytes = EMPTY_PACK_BYTES;

  get size(): number {
    return this.deliveries.length;
  }

  add({ subscription, accepted, enqueuedAt }: PackEntry): boolean {
    let event = this.eventIndex.get(accepted);
    let eventBytes = 0;
    const packedEvent =
      event === undefined ? { ...acceptedPart(accepted), enqueuedAt: enqueuedAt.toISOString() } : undefined;
    if (packedEvent) {
      event = this.events.length;
      eventBytes = Buffer.byteLength(JSON.stringify(packedEvent)) + 1;
    }
    const delivery: PackedDelivery = {
      subscriptionId: subscription.id,
      subscriptionCreatedAt: subscription.createdAt,
      event: event as number,
    };
    const added = eventBytes + Buffer.byteLength(JSON.stringify(delivery)) + 1;
    const full = this.deliveries.length >= PACK_MAX_DELIVERIES || this.bytes + added > PACK_MAX_BYTES;
    if (full && this.deliveries.length > 0) return false;
    if (packedEvent) {
      this.events.push(packedEvent);
      this.eventIndex.set(accepted, event as number);
    }
    this.deliveries.push(delivery);
    this.bytes += added;
    return true;
  }

  /** The pack's body. */
  close(): string {
    const pack: DeliveryPack = { kind: 'deliveries', events: this.events, deliveries: this.deliveries };
    return JSON.stringify(pack);
  }
}

const EMPTY_PACK_BYTES = Buffer.byteLength(
  JSON.stringify({ kind: 'deliveries', events: [], deliveries: [] } satisfies DeliveryPack),
);

/** The notification of one pack entry, as the delivery queue's reader gives it from the entry's pack. */
export function deliveryMessageOf({ subscription, accepted, enqueuedAt }: PackEntry): DeliveryMessage {
  return {
    kind: 'delivery',
    subscriptionId: subscription.id,
    subscriptionCreatedAt: subscription.createdAt,
    ...acceptedPart(accepted),
    enqueuedAt: enqueuedAt.toISOString(),
  };
}

/** The bodies of the packs that carry `entries`, in their order. */
export function packDeliveries(entries: readonly PackEntry[]): string[] {
  const bodies: string[] = [];
  let pack = new PackBuilder();
  for (const entry of entries) {
    if (pack.add(entry)) continue;
    bodies.push(pack.close());
    pack = new PackBuilder();
    pack.add(entry);
  }
  if (pack.size > 0) bodies.push(pack.close());
  return bodies;
}

export function fanOutMessage(accepted: TracedEvent, continuation?: FanOutContinuation): FanOutMessage {
  return { kind: 'fan-out', ...acceptedPart(accepted), ...(continuation ? { continuation } : {}) };
}

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
    continuation: startKey === undefined ? { ancestor } : { ancestor, startKey: startKey as PagePosition },
  };
}

/**
 * The notifications of a message on the delivery queue: a pack's, or the one of a delivery
 * message or of a redriven dead letter (`deliveryFrom`). Throws MalformedMessageError for
 * anything else, a pack over PACK_MAX_DELIVERIES included.
 */
export function parseDeliveryQueueMessage(
  body: string,
  redrivenAt: Date = new Date(),
): { readonly packed: boolean; readonly notifications: DeliveryMessage[] } {
  const input = parseObject(body);
  if (input.kind !== 'deliveries') {
    return { packed: false, notifications: [deliveryFrom(input, redrivenAt)] };
  }
  const { events, deliveries } = input;
  if (!Array.isArray(events) || !Array.isArray(deliveries) || deliveries.length === 0) {
    throw new MalformedMessageError('a pack needs events and deliveries');
  }
  if (deliveries.length > PACK_MAX_DELIVERIES) {
    throw new MalformedMessageError(`a pack carries at most ${PACK_MAX_DELIVERIES} deliveries`);
  }
  const parsed = events.map((event: unknown) => {
    if (typeof event !== 'object' || event === null) throw new MalformedMessageError('an event is missing');
    const e = event as Record<string, unknown>;
    return { ...parseAccepted(e), enqueuedAt: text(e, 'enqueuedAt') };
  });
  const notifications = deliveries.map((delivery: unknown): DeliveryMessage => {
    if (typeof delivery !== 'object' || delivery === null) {
      throw new MalformedMessageError('a delivery is not an object');
    }
    const d = delivery as Record<string, unknown>;
    const event = typeof d.event === 'number' ? parsed[d.event] : undefined;
    if (!event) throw new MalformedMessageError("a delivery's event is not in the pack");
    return {
      kind: 'delivery',
      subscriptionId: text(d, 'subscriptionId'),
      subscriptionCreatedAt: text(d, 'subscriptionCreatedAt'),
      ...event,
    };
  });
  return { packed: true, notifications };
}

/**
 * A delivery message (a notification that left its pack), or a dead letter put back on the delivery
 * queue by a redrive (SQS's StartMessageMoveTask, `npm run dead-letters -- --redrive`): it is
 * delivered again, with a new retry window counted from `redrivenAt`, its first receive there.
 */
function deliveryFrom(input: Record<string, unknown>, redrivenAt: Date): DeliveryMessage {
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

function acceptedPart(accepted: TracedEvent): TracedEvent {
  return {
    publisherId: accepted.publisherId,
    resourceAddress: accepted.resourceAddress,
    event: accepted.event,
    acceptedAt: accepted.acceptedAt,
    ...(accepted.traceparent ? { traceparent: accepted.traceparent } : {}),
  };
}

/** The notification's trace: the one it carries, or, queued before traces were, one made from its event. */
export function notificationTrace(notification: TracedEvent): TraceContext {
  const { publisherId, event } = notification;
  return (
    parseTraceparent(notification.traceparent) ??
    traceFromIdentity(`${publisherId}\n${event.source}\n${event.id}`)
  );
}

// The event was validated when it was accepted; here only its shape is checked, to fail loudly on
// a message some other producer put on the queue.
function parseAccepted(input: Record<string, unknown>): TracedEvent {
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
    // One that is not a valid traceparent is left out (`notificationTrace` makes one).
    ...(parseTraceparent(optionalText(input, 'traceparent'))
      ? { traceparent: String(input.traceparent) }
      : {}),
  };
}

function optionalText(input: Record<string, unknown>, member: string): string | undefined {
  const value = input[member];
  return typeof value === 'string' ? value : undefined;
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
