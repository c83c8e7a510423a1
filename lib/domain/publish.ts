import { BadRequestError, TooManyRequestsError } from '../errors';
import { logger } from '../logger';
import {
  firstValueOutside,
  type NotificationEvent,
  possiblePublisherAddresses,
  type ValidatedEvent,
  validateEvent,
  wrongSource,
} from './event';
import { isServiceId } from './ids';
import type { DeliveryPort, PublisherStore } from './ports';
import { notTheOwner, type Producer, UNNAMED } from './producers';
import { publisherNotFound } from './publishers';

export type PublishResult =
  | { readonly kind: 'accepted'; readonly event: NotificationEvent }
  | { readonly kind: 'ignored'; readonly reason: 'duplicate' | 'stale'; readonly event: NotificationEvent };

export interface PublishSettings {
  /** How far ahead of `clock` an event's `time` may be (see the configuration's EVENT_TIME_TOLERANCE_MS). */
  readonly timeToleranceMs: number;
  /** At most this many events a second per publisher, in bursts of up to `burst` (docs/security.md); none: no rate. */
  readonly rate?: { readonly eventsPerSecond: number; readonly burst: number } | undefined;
}

/** Publishers remembered per process; a node agent publishes with the same id again and again. */
const ADDRESS_CACHE_SIZE = 10_000;

/** Contract 5, POST /publishers/{id}/events. */
export class Publish {
  /**
   * Publisher id → address. A publisher's address never changes, and a deleted publisher is
   * caught by the condition of the accept update, so a warm publish needs no read.
   */
  private readonly addresses = new Map<string, string>();

  constructor(
    private readonly store: PublisherStore,
    private readonly delivery: DeliveryPort,
    private readonly settings: PublishSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * A new event becomes the current state and goes to delivery; a repeat of the current state's
   * event (`duplicate`) or an older one (`stale`, also a repeat of an event no longer current) does not.
   */
  async publish(publisherId: string, body: unknown, producer: Producer = UNNAMED): Promise<PublishResult> {
    const known = this.addresses.get(publisherId);
    if (known !== undefined)
      return this.accept(publisherId, this.checkTime(validateEvent(body, known)), known, producer);
    if (!isServiceId(publisherId)) throw publisherNotFound(publisherId);
    // Not known to this instance yet: its address is read while the event is accepted, since the
    // accept update checks the source itself. A cold instance's publish then waits for one
    // round trip to the store instead of two.
    const address = this.lookUpAddress(publisherId);
    let validated: ValidatedEvent;
    try {
      validated = this.checkTime(validateEvent(body));
      // Values on no common node fit no publisher (the store takes no such event): say which one
      // is off this one's node, or that there is no publisher.
      const { source, data } = validated.event;
      if (possiblePublisherAddresses(data.values, source).length === 0) {
        const publisherAddress = await address;
        if (publisherAddress !== undefined) throw firstValueOutside(data.values, publisherAddress, source);
        throw publisherNotFound(publisherId);
      }
    } catch (error) {
      if ((await address) === undefined) throw publisherNotFound(publisherId);
      throw error;
    }
    return this.accept(publisherId, validated, address, producer);
  }

  /** The 429 of a publisher over its rate: when to try again, and the rate's setting. */
  private overRate(address: string, retryAfterMs: number, producer: Producer): TooManyRequestsError {
    const rate = this.settings.rate;
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return new TooManyRequestsError(
      `The publisher at ${address} is over its rate of ${rate?.eventsPerSecond} events a second (bursts of ${rate?.burst}): send this event again after ${retryAfterSeconds} s (Retry-After). The rate is the stage parameters publisherEventRate and publisherEventBurst (locally PUBLISHER_EVENT_RATE and PUBLISHER_EVENT_BURST); docs/security.md`,
      retryAfterSeconds,
      { rule: 'rate', principal: producer.principal, address },
    );
  }

  /** A producer's clock that runs ahead would freeze its address's state: refuse such an event. */
  private checkTime(validated: ValidatedEvent): ValidatedEvent {
    const { time } = validated.event;
    const aheadMs = Date.parse(time) - this.clock();
    if (aheadMs > this.settings.timeToleranceMs) {
      throw new BadRequestError(
        `time "${time}" is ${formatSeconds(aheadMs)} s ahead of the service's clock; events may be at most ${formatSeconds(this.settings.timeToleranceMs)} s ahead: check the producer's clock`,
      );
    }
    return validated;
  }

  private async accept(
    publisherId: string,
    { event, timeKey }: ValidatedEvent,
    address: string | Promise<string | undefined>,
    producer: Producer,
  ): Promise<PublishResult> {
    const acceptedAt = new Date(this.clock());
    const [accepted, read] = await Promise.allSettled([
      this.store.acceptEvent({
        publisherId,
        event,
        timeKey,
        acceptedAt: acceptedAt.toISOString(),
        publisherAddresses: possiblePublisherAddresses(event.data.values, event.source),
        producer: producer.principal,
        rate: this.settings.rate && {
          intervalMs: Math.ceil(1000 / this.settings.rate.eventsPerSecond),
          burst: this.settings.rate.burst,
        },
      }),
      address,
    ]);
    if (accepted.status === 'rejected') throw accepted.reason;
    const outcome = accepted.value;
    switch (outcome.kind) {
      case 'unknown-publisher':
        this.addresses.delete(publisherId);
        throw publisherNotFound(publisherId);
      case 'wrong-source':
        throw wrongSource(event.source, outcome.publisherAddress);
      case 'value-outside':
        throw firstValueOutside(event.data.values, outcome.publisherAddress, event.source);
      case 'not-owner':
        throw notTheOwner(producer, outcome.publisherAddress, 'publish through it');
      case 'over-rate':
        throw this.overRate(outcome.publisherAddress, outcome.retryAfterMs, producer);
      case 'duplicate':
      case 'stale':
        return { kind: 'ignored', reason: outcome.kind, event };
    }
    let resourceAddress: string | undefined;
    try {
      // A read that ran alongside the update may have come before the publisher existed
      // (created a moment ago); the update has just found it, so a second read settles it.
      resourceAddress =
        (read.status === 'fulfilled' ? read.value : undefined) ?? (await this.lookUpAddress(publisherId));
    } catch (error) {
      throw await this.undoAcceptance(publisherId, event, error);
    }
    // Deleted since the update, its state with it: as if it had been deleted first.
    if (resourceAddress === undefined)
      throw await this.undoAcceptance(publisherId, event, publisherNotFound(publisherId));
    try {
      await this.delivery.eventAccepted({
        publisherId,
        resourceAddress,
        event,
        acceptedAt: acceptedAt.toISOString(),
      });
    } catch (error) {
      // A 503 with Retry-After when the queue is unavailable.
      throw await this.undoAcceptance(publisherId, event, error);
    }
    return { kind: 'accepted', event };
  }

  /**
   * An accepted event that nobody will be notified of (it is the current state already, unless a
   * newer one came since): the state forgets that it is this event's, so that the producer's retry
   * of the request (the same event, of the same time) is accepted and delivered. Returns `reason`,
   * what to answer, which tells the producer to retry.
   */
  private async undoAcceptance(
    publisherId: string,
    event: NotificationEvent,
    reason: unknown,
  ): Promise<unknown> {
    try {
      await this.store.forgetAcceptedEvent(publisherId, event.source, event.id);
    } catch (error) {
      logger.error(
        'an accepted event that was not delivered could not be forgotten: its retry will be taken as a repeat',
        {
          publisherId,
          source: event.source,
          eventId: event.id,
          error,
        },
      );
    }
    return reason;
  }

  /** The publisher's address, remembered once read; undefined when there is no such publisher. */
  private async lookUpAddress(publisherId: string): Promise<string | undefined> {
    const publisher = await this.store.getPublisher(publisherId);
    if (!publisher) return undefined;
    if (this.addresses.size >= ADDRESS_CACHE_SIZE) {
      const oldest = this.addresses.keys().next().value;
      if (oldest !== undefined) this.addresses.delete(oldest);
    }
    this.addresses.set(publisherId, publisher.resourceAddress);
    return publisher.resourceAddress;
  }
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
