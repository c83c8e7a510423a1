import { ConflictError } from '../../lib/errors';
import { publisherLocation, publisherRecord } from '../../lib/http/representations';
import { apiBaseUrl, producerOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { publishers } from '../../lib/services';

export const handler = httpRoute(
  async (event) => {
    const base = apiBaseUrl(event);
    const result = await publishers().register(event.body, producerOf(event));
    if (result.kind === 'exists') {
      const location = publisherLocation(base, result.existingId);
      throw new ConflictError(
        `A publisher is already registered at this ResourceAddress: ${location}`,
        location,
      );
    }
    const record = publisherRecord(result.publisher, base);
    return json(201, record, { Location: record.UriLocation });
  },
  { jsonBody: true },
);
