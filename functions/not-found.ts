import { NotFoundError } from '../lib/errors';
import { httpRoute } from '../lib/http/route';

/** The HTTP API's `$default` route: anything no other route matches gets a problem document. */
export const handler = httpRoute(async (event) => {
  throw new NotFoundError(
    `No route for ${event.requestContext.http.method} ${event.rawPath}; the API is under /api/ocloudNotifications/v2`,
  );
});
