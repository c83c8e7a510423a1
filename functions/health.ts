import { text } from '../lib/http/responses';
import { httpRoute } from '../lib/http/route';
import { store } from '../lib/services';

export const handler = httpRoute(async () => {
  await store().ping();
  return text(200, 'OK');
});
