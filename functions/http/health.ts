import { text } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { storeStatus } from '../../lib/services';

export const handler = httpRoute(async () => {
  await storeStatus().ping();
  return text(200, 'OK');
});
