import { ConflictError } from '../../lib/errors';
import { subscriptionInfo, subscriptionLocation } from '../../lib/http/representations';
import { apiBaseUrl, principalOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { subscribe } from '../../lib/services';

export const handler = httpRoute(
  async (event) => {
    const base = apiBaseUrl(event);
    const result = await subscribe().create(principalOf(event), event.body);
    if (result.kind === 'exists') {
      const location = subscriptionLocation(base, result.existingId);
      throw new ConflictError(
        `A subscription for this ResourceAddress and EndpointUri already exists: ${location}`,
        location,
      );
    }
    const info = subscriptionInfo(result.subscription, base);
    // The only time the secret leaves the service: GET, lists and 409 never carry it.
    return json(201, { ...info, SigningSecret: result.signingSecret }, { Location: info.UriLocation });
  },
  { jsonBody: true },
);
