import { deadLetterEvent } from '../../lib/http/representations';
import { pathParameter, principalOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { subscriptionDeliveries } from '../../lib/services';

/** POST /subscriptions/{subscriptionId}/dead-letters/redrive: the dead letters back for delivery, in order. */
export const handler = httpRoute(async (event) => {
  const outcome = await subscriptionDeliveries().redrive(
    principalOf(event),
    pathParameter(event, 'subscriptionId'),
  );
  return json(200, {
    Redriven: outcome.redriven.map(deadLetterEvent),
    Dropped: outcome.dropped.map(({ letter, why }) => ({ ...deadLetterEvent(letter), Reason: why })),
    More: outcome.more,
  });
});
