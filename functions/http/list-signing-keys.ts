import { signingKeyList } from '../../lib/http/representations';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { publishedWebhookKeys } from '../../lib/services';

/** GET /signing-keys: the public keys of the `v1a` signatures, open like the health check. */
export const handler = httpRoute(async () => {
  const keys = await publishedWebhookKeys().published(Date.now());
  return json(200, signingKeyList(keys));
});
