/**
 * The node's API: every route of lib/http/routes.ts served by the function the region runs for it
 * (serverless.yml; test/agent/node-routes.test.ts holds the two to each other), save health, which
 * on a node also says what the agent follows. The queue functions, by their serverless.yml keys,
 * are what the node's event sources invoke.
 */
import type { Context } from 'aws-lambda';
import { handler as createPublisher } from '../../functions/http/create-publisher';
import { handler as createSubscription } from '../../functions/http/create-subscription';
import { handler as deleteAllSubscriptions } from '../../functions/http/delete-all-subscriptions';
import { handler as deletePublisher } from '../../functions/http/delete-publisher';
import { handler as deleteSubscription } from '../../functions/http/delete-subscription';
import { handler as getCurrentState } from '../../functions/http/get-current-state';
import { handler as getPublisher } from '../../functions/http/get-publisher';
import { handler as getSubscription } from '../../functions/http/get-subscription';
import { handler as listDeadLetters } from '../../functions/http/list-dead-letters';
import { handler as listDeliveries } from '../../functions/http/list-deliveries';
import { handler as listPublishers } from '../../functions/http/list-publishers';
import { handler as listSigningKeys } from '../../functions/http/list-signing-keys';
import { handler as listSubscriptions } from '../../functions/http/list-subscriptions';
import { handler as notFound } from '../../functions/http/not-found';
import { handler as openapi } from '../../functions/http/openapi';
import { handler as publishEvent } from '../../functions/http/publish-event';
import { handler as redriveDeadLetters } from '../../functions/http/redrive-dead-letters';
import { handler as rotateSubscriptionSecret } from '../../functions/http/rotate-subscription-secret';
import { handler as deliver } from '../../functions/queue/deliver';
import { handler as fanOut } from '../../functions/queue/fan-out';
import { handler as removeRetiredSubscriptions } from '../../functions/queue/remove-retired-subscriptions';
import { handler as rotateWebhookKeys } from '../../functions/schedule/rotate-webhook-keys';
import type { HttpEvent } from '../../lib/http/request';
import type { HttpResponse } from '../../lib/http/responses';
import type { RouteKey } from '../../lib/http/routes';

export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

/** Every route but health (agent/serve/node-health.ts), by its key. */
export const ROUTE_HANDLERS: Record<Exclude<RouteKey, 'GET /health'>, HttpHandler> = {
  'POST /subscriptions': createSubscription,
  'GET /subscriptions': listSubscriptions,
  'DELETE /subscriptions': deleteAllSubscriptions,
  'GET /subscriptions/{subscriptionId}': getSubscription,
  'DELETE /subscriptions/{subscriptionId}': deleteSubscription,
  'POST /subscriptions/{subscriptionId}/secret/rotate': rotateSubscriptionSecret,
  'GET /subscriptions/{subscriptionId}/deliveries': listDeliveries,
  'GET /subscriptions/{subscriptionId}/dead-letters': listDeadLetters,
  'POST /subscriptions/{subscriptionId}/dead-letters/redrive': redriveDeadLetters,
  'GET /{ResourceAddress}/CurrentState': getCurrentState,
  'GET /publishers': listPublishers,
  'POST /publishers': createPublisher,
  'GET /publishers/{publisherId}': getPublisher,
  'DELETE /publishers/{publisherId}': deletePublisher,
  'POST /publishers/{publisherId}/events': publishEvent,
  'GET /signing-keys': listSigningKeys,
  'GET /openapi.json': openapi,
};

/** The `$default` route: 404, or 405 for a known path. */
export const DEFAULT_ROUTE: HttpHandler = notFound;

/** The queue functions, by their key in serverless.yml (lib/queue/event-source.ts names them so). */
export const QUEUE_FUNCTIONS = { fanOut, deliver, removeRetiredSubscriptions } as const;

/** The daily rotation of the `v1a` keys. */
export const ROTATE_WEBHOOK_KEYS = rotateWebhookKeys;
