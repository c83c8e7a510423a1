import { pagedList } from '../../lib/http/paging';
import { deadLetterInfo } from '../../lib/http/representations';
import { pathParameter, principalOf } from '../../lib/http/request';
import { httpRoute } from '../../lib/http/route';
import { subscriptionDeliveries } from '../../lib/services';

/** GET /subscriptions/{subscriptionId}/dead-letters: what was given up on, why, after how many attempts. */
export const handler = httpRoute(async (event) => {
  const owner = principalOf(event);
  const id = pathParameter(event, 'subscriptionId');
  const list = pagedList(event, `subscriptions/${id}/dead-letters`, owner);
  const page = await subscriptionDeliveries().deadLetters(owner, id, list.request);
  return list.respond(page, deadLetterInfo);
});
