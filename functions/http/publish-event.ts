import { pathParameter, producerOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { metricsOf } from '../../lib/metrics';
import { publish } from '../../lib/services';

export const handler = httpRoute(
  async (event, context) => {
    const result = await publish().publish(
      pathParameter(event, 'publisherId'),
      event.body,
      producerOf(event),
    );
    if (result.kind === 'accepted') {
      metricsOf(context).count('EventsPublished');
      return json(202, { accepted: true, event: result.event });
    }
    return json(200, {
      accepted: false,
      reason: result.reason,
      detail:
        result.reason === 'duplicate'
          ? `An event with source ${result.event.source} and id ${result.event.id} was already accepted`
          : `The event's time ${result.event.time} is older than the current state; it was not stored or delivered`,
    });
  },
  { jsonBody: true },
);
