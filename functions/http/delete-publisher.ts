import { pathParameter, producerOf } from '../../lib/http/request';
import { noContent } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { publishers } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  await publishers().delete(pathParameter(event, 'publisherId'), producerOf(event));
  return noContent();
});
