import { BadRequestError, NotFoundError } from '../errors';
import { BASE_PATH } from './base-path';

const SUFFIX = '/CurrentState';

/**
 * The catch-all route hands over any GET under the base path: the address is everything between
 * the base path and `/CurrentState`, each segment percent-decoded. Anything else is not a route.
 *
 * The address may be written with its slashes as they are (`/c/s/n/CurrentState`) or
 * percent-encoded (`%2F`), as generated clients write a path parameter: `/%2Fc%2Fs%2Fn/CurrentState`,
 * `/c%2Fs%2Fn/CurrentState`. Both name the same address. API Gateway's HTTP API delivers the path
 * decoded, so the first form arrives as `//c/s/n/CurrentState`: the doubled slash right after the
 * base path is the address's own leading slash, and counts once. Any other empty segment is left
 * for the address check to refuse.
 */
export function addressFromCurrentStatePath(rawPath: string): string {
  const start = rawPath.indexOf(BASE_PATH);
  const path = start === -1 ? rawPath : rawPath.slice(start + BASE_PATH.length);
  if (!path.endsWith(SUFFIX) || path.length === SUFFIX.length) {
    throw new NotFoundError(
      `No resource at ${rawPath}; current state is read at ${BASE_PATH}/{ResourceAddress}/CurrentState`,
    );
  }
  const address = path
    .slice(0, -SUFFIX.length)
    .split('/')
    .map((segment) => decode(segment, rawPath))
    .join('/');
  return address.startsWith('//') ? address.slice(1) : address;
}

function decode(segment: string, rawPath: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequestError(`The resource address in ${rawPath} is not correctly percent-encoded`);
  }
}
