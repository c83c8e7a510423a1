import { addressFromCurrentStatePath } from '../lib/http/current-state-path';
import { json } from '../lib/http/responses';
import { httpRoute } from '../lib/http/route';
import { publishers } from '../lib/services';

/** Serves the catch-all GET route: only `{ResourceAddress}/CurrentState` paths exist under it. */
export const handler = httpRoute(async (event) => {
  const current = await publishers().currentState(addressFromCurrentStatePath(event.rawPath));
  return json(200, current);
});
