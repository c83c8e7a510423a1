import { publisherRecord } from '../../lib/http/representations';
import { apiBaseUrl, pathParameter } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { publishers } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  const publisher = await publishers().get(pathParameter(event, 'publisherId'));
  return json(200, publisherRecord(publisher, apiBaseUrl(event)));
});
