import type { DeadLetterRecord, DeliveryStatus, Publisher, Subscription } from '../domain/model';
import { PUBLIC_KEY_PREFIX, type PublishedWebhookKey } from '../domain/webhook-keys';

/** SubscriptionInfo, with member names exactly as the OpenAPI document (lib/http/openapi.json) writes them. */
export interface SubscriptionInfo {
  SubscriptionId: string;
  UriLocation: string;
  ResourceAddress: string;
  EndpointUri: string;
}

export function subscriptionInfo(subscription: Subscription, apiBase: string): SubscriptionInfo {
  return {
    SubscriptionId: subscription.id,
    UriLocation: subscriptionLocation(apiBase, subscription.id),
    ResourceAddress: subscription.resourceAddress,
    EndpointUri: subscription.endpointUri,
  };
}

/**
 * A publisher record always carries an absolute `EndpointUri` (clients such as sdk-go's PubSub
 * refuse one without): the producer's own, or else where its current state is pulled.
 */
export function publisherRecord(publisher: Publisher, apiBase: string): SubscriptionInfo {
  return {
    SubscriptionId: publisher.id,
    UriLocation: publisherLocation(apiBase, publisher.id),
    ResourceAddress: publisher.resourceAddress,
    EndpointUri: publisher.endpointUri ?? currentStateLocation(apiBase, publisher.resourceAddress),
  };
}

export const subscriptionLocation = (apiBase: string, id: string) => `${apiBase}/subscriptions/${id}`;
export const publisherLocation = (apiBase: string, id: string) => `${apiBase}/publishers/${id}`;
/** Address segments are of unreserved characters and `:`, all valid in a path as they are. */
export const currentStateLocation = (apiBase: string, address: string) => `${apiBase}${address}/CurrentState`;

/** A DeliveryStatus of GET /subscriptions/{id}/deliveries (lib/http/openapi.json). */
export function deliveryStatusInfo(status: DeliveryStatus) {
  const { delivered: d, lastFailure: f } = status;
  return {
    ResourceAddress: status.resourceAddress,
    ...(d && {
      LastDelivered: {
        Source: d.source,
        Id: d.id,
        Time: d.time,
        DeliveredAt: new Date(d.deliveredAt).toISOString(),
        ...(d.latencyMs === undefined ? {} : { LatencyMs: d.latencyMs }),
      },
    }),
    ...(f && {
      LastFailure: { FailedAt: new Date(f.at).toISOString(), Reason: f.reason, Attempts: f.attempts },
    }),
    ...(status.endpointSuspendedAt !== undefined && {
      EndpointSuspended: {
        Since: new Date(status.endpointSuspendedAt).toISOString(),
        Reason:
          'endpoint suspended: every attempt failed for the suspension time; redrive the dead letters to resume it',
      },
    }),
  };
}

/** A DeadLetter of GET /subscriptions/{id}/dead-letters. */
export function deadLetterInfo(letter: DeadLetterRecord) {
  return {
    ResourceAddress: letter.resourceAddress,
    Event: letter.event,
    Reason: letter.reason,
    Attempts: letter.attempts,
    AcceptedAt: letter.acceptedAt,
    DeadLetteredAt: letter.deadLetteredAt,
  };
}

/** Which event a redriven or dropped dead letter carried. */
export function deadLetterEvent(letter: DeadLetterRecord) {
  return {
    ResourceAddress: letter.resourceAddress,
    Source: letter.event.source,
    Id: letter.event.id,
    Time: letter.event.time,
  };
}

/** GET /signing-keys: each key as Standard Webhooks' `whpk_…` and as a JWK (RFC 8037). */
export function signingKeyList(keys: readonly PublishedWebhookKey[]) {
  return {
    Keys: keys.map((key) => ({
      KeyId: key.id,
      Algorithm: 'ed25519',
      PublicKey: key.publicKey,
      Jwk: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(key.publicKey.slice(PUBLIC_KEY_PREFIX.length), 'base64').toString('base64url'),
        kid: key.id,
        use: 'sig',
        alg: 'EdDSA',
      },
      ValidFrom: new Date(key.validFrom).toISOString(),
      ...(key.validUntil === undefined ? {} : { ValidUntil: new Date(key.validUntil).toISOString() }),
      Signing: key.signing,
    })),
  };
}
