import { pagedList } from '../../lib/http/paging';
import { subscriptionInfo } from '../../lib/http/representations';
import { apiBaseUrl, principalOf } from '../../lib/http/request';
import { httpRoute } from '../../lib/http/route';
import { subscriptions } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  const owner = principalOf(event);
  const list = pagedList(event, 'subscriptions', owner);
  const page = await subscriptions().list(owner, event.queryStringParameters?.ResourceAddress, list.request);
  const base = apiBaseUrl(event);
  return list.respond(page, (subscription) => subscriptionInfo(subscription, base));
});
