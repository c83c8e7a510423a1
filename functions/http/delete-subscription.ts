import { pathParameter, principalOf } from '../../lib/http/request';
import { noContent } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { subscriptions } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  await subscriptions().delete(principalOf(event), pathParameter(event, 'subscriptionId'));
  return noContent();
});
