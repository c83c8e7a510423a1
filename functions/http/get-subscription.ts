import { subscriptionInfo } from '../../lib/http/representations';
import { apiBaseUrl, pathParameter, principalOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { subscriptions } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  const subscription = await subscriptions().get(principalOf(event), pathParameter(event, 'subscriptionId'));
  return json(200, subscriptionInfo(subscription, apiBaseUrl(event)));
});
