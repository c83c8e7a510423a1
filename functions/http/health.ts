import { text } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { storeHealth } from '../../lib/services';

export const handler = httpRoute(async () => {
  await storeHealth().ping();
  return text(200, 'OK');
});
