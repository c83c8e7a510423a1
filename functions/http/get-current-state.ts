import { addressFromCurrentStatePath } from '../../lib/http/current-state-path';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { assertMethodAllowed } from '../../lib/http/routes';
import { publishers } from '../../lib/services';

/**
 * Serves the catch-all GET route: only `{ResourceAddress}/CurrentState` paths exist under it. A GET
 * that lands here for a path whose routes lack GET (`/publishers/{id}/events`) is a 405, as the
 * `$default` route answers for the other methods.
 */
export const handler = httpRoute(
  async (event) => {
    assertMethodAllowed(event.requestContext.http.method, event.rawPath);
    const current = await publishers().currentState(addressFromCurrentStatePath(event.rawPath));
    return json(200, current);
  },
  { addressInPath: true },
);
