import { NotFoundError } from '../lib/errors';
import { publisherRecord } from '../lib/http/representations';
import { apiBaseUrl } from '../lib/http/request';
import { json } from '../lib/http/responses';
import { httpRoute } from '../lib/http/route';
import { publishers } from '../lib/services';

export const handler = httpRoute(async (event) => {
  const found = await publishers().list();
  if (found.length === 0) throw new NotFoundError('No publisher is registered');
  const base = apiBaseUrl(event);
  return json(
    200,
    found.map((publisher) => publisherRecord(publisher, base)),
  );
});
