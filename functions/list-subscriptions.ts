import { subscriptionInfo } from '../lib/http/representations';
import { apiBaseUrl, principalOf } from '../lib/http/request';
import { json } from '../lib/http/responses';
import { httpRoute } from '../lib/http/route';
import { subscriptions } from '../lib/services';

export const handler = httpRoute(async (event) => {
  const filter = event.queryStringParameters?.ResourceAddress;
  const found = await subscriptions().list(principalOf(event), filter);
  const base = apiBaseUrl(event);
  return json(
    200,
    found.map((subscription) => subscriptionInfo(subscription, base)),
  );
});
