import { NotFoundError } from '../../lib/errors';
import { BASE_PATH } from '../../lib/http/base-path';
import { httpRoute } from '../../lib/http/route';
import { assertMethodAllowed } from '../../lib/http/routes';

/**
 * The HTTP API's `$default` route (and serverless offline's catch-all): a known path called with a
 * method it lacks gets 405 with `Allow`; anything else a 404. Both are problem documents.
 */
export const handler = httpRoute(async (event) => {
  const method = event.requestContext.http.method;
  assertMethodAllowed(method, event.rawPath);
  throw new NotFoundError(`No route for ${method} ${event.rawPath}; the API is under ${BASE_PATH}`);
});
