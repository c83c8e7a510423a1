import { BadRequestError, NotFoundError } from '../errors';
import { BASE_PATH } from './request';

const SUFFIX = '/CurrentState';

/**
 * The catch-all route hands over any GET under the base path: the address is everything between
 * the base path and `/CurrentState`, each segment percent-decoded. Anything else is not a route.
 */
export function addressFromCurrentStatePath(rawPath: string): string {
  const start = rawPath.indexOf(BASE_PATH);
  const path = start === -1 ? rawPath : rawPath.slice(start + BASE_PATH.length);
  if (!path.endsWith(SUFFIX) || path.length === SUFFIX.length) {
    throw new NotFoundError(
      `No resource at ${rawPath}; current state is read at ${BASE_PATH}/{ResourceAddress}/CurrentState`,
    );
  }
  const segments = path
    .slice(0, -SUFFIX.length)
    .split('/')
    .map((segment) => decode(segment, rawPath));
  return segments.join('/');
}

function decode(segment: string, rawPath: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new BadRequestError(`The resource address in ${rawPath} is not correctly percent-encoded`);
  }
  if (decoded.includes('/')) {
    throw new BadRequestError(
      `A segment of the resource address in ${rawPath} encodes a "/"; write it as a separator`,
    );
  }
  return decoded;
}
