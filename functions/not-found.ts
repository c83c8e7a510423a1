import { MethodNotAllowedError, NotFoundError } from '../lib/errors';
import { BASE_PATH } from '../lib/http/request';
import { httpRoute } from '../lib/http/route';
import { methodsFor } from '../lib/http/routes';

/**
 * The HTTP API's `$default` route (and serverless offline's catch-all): a known path called with a
 * method it lacks gets 405 with `Allow`; anything else a 404. Both are problem documents.
 */
export const handler = httpRoute(async (event) => {
  const method = event.requestContext.http.method;
  const allowed = methodsFor(event.rawPath);
  if (allowed.length > 0 && !allowed.includes(method)) {
    throw new MethodNotAllowedError(
      `${event.rawPath} does not support ${method}; it supports ${allowed.join(', ')}`,
      allowed,
    );
  }
  throw new NotFoundError(`No route for ${method} ${event.rawPath}; the API is under ${BASE_PATH}`);
});
