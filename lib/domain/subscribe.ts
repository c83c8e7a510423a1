import { BadRequestError, NotFoundError } from '../errors';
import { validateEndpointUri } from './endpoint-uri';
import { publisherIdFor, subscriptionIdFor } from './ids';
import { requireExactMemberNames } from './member-names';
import type { PublisherState, Subscription } from './model';
import type { NodeScope } from './node-scope';
import type { AcceptedEvent, DeliveryPort, EndpointGate, SubscriptionStore } from './ports';
import { normaliseResourceAddress } from './resource-address';
import { signingSecretFrom } from './signing-secret';

export type CreateSubscriptionResult =
  | { readonly kind: 'created'; readonly subscription: Subscription; readonly signingSecret: string }
  | { readonly kind: 'exists'; readonly existingId: string };

/** Contract 4, POST /subscriptions: the only subscription operation that talks to consumers and delivery. */
export class Subscribe {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly endpoints: EndpointGate,
    private readonly delivery: DeliveryPort,
    /** On a node host, the node it serves; the region serves every address. */
    private readonly scope?: NodeScope,
  ) {}

  /** Contract 4, POST /subscriptions: validate, 409, 404, sanity check, store. */
  async create(owner: string, body: unknown): Promise<CreateSubscriptionResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestError(
        'The request body must be a JSON object with ResourceAddress and EndpointUri',
      );
    }
    const input = body as Record<string, unknown>;
    requireExactMemberNames(input, ['ResourceAddress', 'EndpointUri', 'SigningSecret']);
    const resourceAddress = normaliseResourceAddress(input.ResourceAddress);
    this.scope?.assertSubscribableAddress(resourceAddress);
    const endpoint = validateEndpointUri(input.EndpointUri);
    const endpointUri = input.EndpointUri as string;
    const signingSecret = signingSecretFrom(input.SigningSecret);
    const id = subscriptionIdFor(owner, resourceAddress, endpointUri);
    // The id a publisher at exactly the address has: read before the write and again after it.
    const exactPublisherId = publisherIdFor(resourceAddress);

    // The store's read for the 409 and the 404 starts while the network policy is checked (a DNS
    // lookup for a host name); the policy's 400 comes first, without waiting for the read. The
    // endpoint checks share one time-out, so that the whole subscribe answers well inside the 2 s
    // after which Red Hat's consumer library gives up: what the lookup took is not given again to
    // the POST (the store's own time is not charged to the endpoint).
    const lookupStarted = Date.now();
    const checking = this.store.subscribeCheck({
      subscriptionId: id,
      owner,
      resourceAddress,
      publisherId: exactPublisherId,
    });
    checking.catch(() => undefined); // answered below, unless the policy's 400 is
    await this.endpoints.assertAllowed(endpoint, lookupStarted + this.endpoints.timeoutMs);
    const lookupMs = Date.now() - lookupStarted;
    const { exists, states, generation } = await checking;
    if (exists) return { kind: 'exists', existingId: id };

    if (states.length === 0) {
      throw new NotFoundError(`No publisher is registered at or under ResourceAddress ${resourceAddress}`);
    }
    const [newest] = states.filter(hasEvent).sort((a, b) => (a.timeKey < b.timeKey ? 1 : -1));
    const deadline = Date.now() + this.endpoints.timeoutMs - lookupMs;
    if (newest) {
      const failure = await this.endpoints.sendInitial(endpointUri, newest.event, [signingSecret], deadline);
      if (failure) {
        throw new BadRequestError(
          `EndpointUri ${endpointUri} did not accept the initial notification (${failure}); it must answer a POST with a 2xx within ${this.endpoints.timeoutMs} ms`,
        );
      }
    } else {
      // Nothing published yet, so there is no state to send, and a made-up one could make a
      // consumer act on a state no clock is in. The endpoint must still accept a connection.
      const failure = await this.endpoints.probe(endpointUri, deadline);
      if (failure) {
        throw new BadRequestError(
          `EndpointUri ${endpointUri} cannot be reached (${failure}); nothing has been published under ResourceAddress ${resourceAddress} yet, so no initial notification was sent, but the endpoint must accept a connection within ${this.endpoints.timeoutMs} ms`,
        );
      }
    }

    const subscription: Subscription = {
      id,
      resourceAddress,
      endpointUri,
      owner,
      createdAt: new Date().toISOString(),
      signing: { current: signingSecret },
    };
    // The initial notification is recorded as delivered in the same transaction, so that a fan-out
    // still under way sends the new subscription neither that event again nor an older one.
    if (!(await this.store.createSubscription(subscription, newest, generation)))
      return { kind: 'exists', existingId: id };
    // An event accepted while the endpoint was checked was fanned out before this subscription
    // existed, so read the states again now that it does: whatever the initial notification did
    // not carry (other publishers' states, and any newer one) is delivered. The delivery cursor
    // drops an event a fan-out delivers as well, and never sends an older one after a newer.
    const current = await this.store.coveredStates(resourceAddress, exactPublisherId);
    const unsent = current.filter(hasEvent).filter((state) => !isSameEvent(state, newest));
    if (unsent.length > 0) await this.delivery.currentStatesFor(subscription, unsent);
    return { kind: 'created', subscription, signingSecret };
  }
}

/** A publisher state with an event: it is both what delivery takes and an initial notification. */
type PublishedState = PublisherState & AcceptedEvent & { readonly timeKey: string };

function hasEvent(state: PublisherState): state is PublishedState {
  return state.event !== undefined && state.timeKey !== undefined && state.acceptedAt !== undefined;
}

function isSameEvent(state: PublishedState, sent: PublishedState | undefined): boolean {
  return sent !== undefined && state.publisherId === sent.publisherId && state.event.id === sent.event.id;
}
