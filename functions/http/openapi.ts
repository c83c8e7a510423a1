import document from '../../lib/http/openapi.json';
import { json } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';

/** GET /openapi.json: the OpenAPI 3.1 document of every route and of the notification, bundled. */
export const handler = httpRoute(async () => json(200, document));
