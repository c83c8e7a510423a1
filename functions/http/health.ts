import { SERVICE_VERSION_HEADER, text } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { storeHealth } from '../../lib/services';
import { version } from '../../package.json';

/** `OK` for the plain callers (Red Hat's consumer reads it), the release in a header (docs/api.md). */
export const handler = httpRoute(async () => {
  await storeHealth().ping();
  return text(200, 'OK', { [SERVICE_VERSION_HEADER]: version });
});
