import { pagedList } from '../../lib/http/paging';
import { deliveryStatusInfo } from '../../lib/http/representations';
import { pathParameter, principalOf } from '../../lib/http/request';
import { httpRoute } from '../../lib/http/route';
import { subscriptionDeliveries } from '../../lib/services';

/** GET /subscriptions/{subscriptionId}/deliveries: per address, the newest delivered event and the last failure. */
export const handler = httpRoute(async (event) => {
  const owner = principalOf(event);
  const id = pathParameter(event, 'subscriptionId');
  const list = pagedList(event, `subscriptions/${id}/deliveries`, owner);
  const page = await subscriptionDeliveries().deliveries(owner, id, list.request);
  return list.respond(page, deliveryStatusInfo);
});
