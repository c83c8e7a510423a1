import { principalOf } from '../../lib/http/request';
import { noContent } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { subscriptions } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  await subscriptions().deleteAll(principalOf(event));
  return noContent();
});
