import { pathParameter, producerOf } from '../../lib/http/request';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { logger } from '../../lib/logger';
import { metricsOf } from '../../lib/metrics';
import { publish } from '../../lib/services';
import { currentTrace, formatTraceparent } from '../../lib/tracing';

export const handler = httpRoute(
  async (event, context) => {
    const publisherId = pathParameter(event, 'publisherId');
    const result = await publish().publish(publisherId, event.body, producerOf(event));
    if (result.kind === 'accepted') {
      metricsOf(context).count('EventsPublished');
      // The trace the event's notifications carry to their consumers (`traceparent`), named to the
      // producer as W3C Trace Context's `traceresponse` (docs/api.md).
      const trace = currentTrace();
      const { source, id } = result.event;
      logger.info('event accepted', { traceId: trace.traceId, publisherId, source, eventId: id });
      return json(202, { accepted: true, event: result.event }, { traceresponse: formatTraceparent(trace) });
    }
    return json(200, {
      accepted: false,
      reason: result.reason,
      detail:
        result.reason === 'duplicate'
          ? `The event with source ${result.event.source} and id ${result.event.id} is the current state already; it was not stored or delivered again`
          : `The event's time ${result.event.time} is older than the current state (a repeat of an event that is no longer the current state is answered so too); it was not stored or delivered`,
    });
  },
  { jsonBody: true },
);
