import { pathParameter, principalOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { rotateSecret } from '../../lib/services';

/** POST /subscriptions/{subscriptionId}/secret/rotate: the new secret, answered this once. */
export const handler = httpRoute(
  async (event) => {
    const rotated = await rotateSecret().rotate(
      principalOf(event),
      pathParameter(event, 'subscriptionId'),
      event.body,
    );
    return json(200, {
      SigningSecret: rotated.secret,
      PreviousSecretValidUntil: new Date(rotated.previousUntil).toISOString(),
    });
  },
  { jsonBody: 'optional' },
);
