import { parseTime } from './event';
import { isServiceId } from './ids';
import type { DeadLetterRecord, DeliveryStatus, Page, PageRequest, Subscription } from './model';
import type {
  DeadLetterStore,
  DeliveryCursorStore,
  DeliveryPort,
  EndpointBreakerStore,
  SubscriptionStore,
} from './ports';
import { notFound } from './subscriptions';

/** Dead letters one redrive puts back at most; `more` tells the caller to ask again. */
export const REDRIVE_BATCH = 100;

export interface RedriveOutcome {
  /** Back on the delivery queue, with a new retry window. */
  readonly redriven: readonly DeadLetterRecord[];
  /** Not sent, because the consumer would then receive an older event after a newer one. */
  readonly dropped: readonly { readonly letter: DeadLetterRecord; readonly why: string }[];
  /** More dead letters are left to redrive. */
  readonly more: boolean;
}

/**
 * What a consumer can ask about its own subscription's deliveries: per address, the newest event
 * delivered and the last failure; its dead letters; and their redrive. Another owner's
 * subscription is not found, as for every subscription route.
 */
export class SubscriptionDeliveries {
  constructor(
    private readonly subscriptions: SubscriptionStore,
    private readonly cursors: DeliveryCursorStore,
    private readonly letters: DeadLetterStore,
    private readonly delivery: DeliveryPort,
    /** The breaker's state, which a redrive resets; none: no breaker. */
    private readonly breaker?: EndpointBreakerStore,
  ) {}

  /** Per address; each says since when the endpoint is suspended, if it is. */
  async deliveries(owner: string, id: string, page: PageRequest): Promise<Page<DeliveryStatus>> {
    const subscription = await this.subscription(owner, id);
    const found = await this.cursors.listDeliveries(subscription, page);
    const since = subscription.endpointSuspendedAt;
    if (since === undefined) return found;
    return { ...found, items: found.items.map((status) => ({ ...status, endpointSuspendedAt: since })) };
  }

  async deadLetters(owner: string, id: string, page: PageRequest): Promise<Page<DeadLetterRecord>> {
    return this.letters.listDeadLetters(await this.subscription(owner, id), page);
  }

  /**
   * Puts the oldest dead letters back for delivery, never an older event after a newer one: of the
   * letters for one address only the newest is sent, and not even that one when the consumer has
   * received it or a newer event since. The others are dropped and reported. Every letter handled
   * is removed once the redriven ones are queued (a failure before leaves them all to redrive again).
   */
  async redrive(owner: string, id: string): Promise<RedriveOutcome> {
    const subscription = await this.subscription(owner, id);
    // A redrive is the consumer saying it is back: a suspended endpoint is resumed first.
    if (subscription.endpointSuspendedAt !== undefined) await this.breaker?.resumeEndpoint(subscription.id);
    const page = await this.letters.listDeadLetters(subscription, { limit: REDRIVE_BATCH });
    const newest = new Map<string, DeadLetterRecord>();
    for (const letter of page.items) {
      const current = newest.get(letter.resourceAddress);
      if (!current || isNewer(letter, current)) newest.set(letter.resourceAddress, letter);
    }
    const delivered = await this.cursors.deliveredSince(subscription.id, [...newest.values()]);
    const redriven = [...newest.values()].filter((letter) => !delivered.has(letter));
    const dropped = page.items
      .filter((letter) => !redriven.includes(letter))
      .map((letter) => ({
        letter,
        why: delivered.has(newest.get(letter.resourceAddress) as DeadLetterRecord)
          ? 'the consumer has received this event or a newer one for the address since'
          : 'a newer dead letter for the address is redriven instead',
      }));
    if (redriven.length > 0) await this.delivery.currentStatesFor(subscription, redriven);
    await this.letters.removeDeadLetters(page.items);
    return { redriven, dropped, more: page.next !== undefined };
  }

  private async subscription(owner: string, id: string): Promise<Subscription> {
    if (!isServiceId(id)) throw notFound(id);
    const subscription = await this.subscriptions.getSubscription(id, owner);
    if (!subscription) throw notFound(id);
    return subscription;
  }
}

/** The delivery order: by event time, and events of the same time by the later dead letter. */
function isNewer(a: DeadLetterRecord, b: DeadLetterRecord): boolean {
  const [ta, tb] = [parseTime(a.event.time), parseTime(b.event.time)];
  return ta > tb || (ta === tb && a.deadLetteredAt > b.deadLetteredAt);
}
