import { pagedList } from '../../lib/http/paging';
import { publisherRecord } from '../../lib/http/representations';
import { apiBaseUrl, principalOf } from '../../lib/http/request';
import { httpRoute } from '../../lib/http/route';
import { publishers } from '../../lib/services';

export const handler = httpRoute(async (event) => {
  const list = pagedList(event, 'publishers', principalOf(event));
  const page = await publishers().list(event.queryStringParameters?.ResourceAddress, list.request);
  const base = apiBaseUrl(event);
  return list.respond(page, (publisher) => publisherRecord(publisher, base));
});
