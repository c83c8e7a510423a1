import { BadRequestError, clip } from '../errors';

const MAX_LENGTH = 512;
const SEGMENT = /^[A-Za-z0-9\-._~:]+$/;
const WILDCARD = /[*?[\]]/;

/**
 * Validates a resource address and returns its normalised form (one trailing `/` removed), the
 * only form that is stored, compared and returned. `member` names the field in error details.
 */
export function normaliseResourceAddress(raw: unknown, member = 'ResourceAddress'): string {
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new BadRequestError(`${member} is required and must be a non-empty string`);
  }
  if (WILDCARD.test(raw)) {
    throw new BadRequestError(`${member} "${clip(raw)}" contains a wildcard; wildcards are not supported`);
  }
  const address = raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
  if (address.length > MAX_LENGTH) {
    throw new BadRequestError(`${member} is longer than ${MAX_LENGTH} characters`);
  }
  if (!address.startsWith('/')) {
    throw new BadRequestError(`${member} "${clip(raw)}" must start with "/", e.g. /cluster/site/node/sync`);
  }
  for (const segment of address.slice(1).split('/')) {
    if (segment === '') {
      throw new BadRequestError(`${member} "${clip(raw)}" has an empty segment`);
    }
    if (segment === '.' || segment === '..') {
      throw new BadRequestError(`${member} "${clip(raw)}" has a "${segment}" segment`);
    }
    if (!SEGMENT.test(segment)) {
      throw new BadRequestError(
        `${member} "${clip(raw)}" has the segment "${clip(segment)}"; segments may contain only letters, digits and - . _ ~ :`,
      );
    }
  }
  return address;
}

/** True when `address` is `ancestor` or lies under it, in whole segments. */
export function isAtOrUnder(address: string, ancestor: string): boolean {
  return address === ancestor || address.startsWith(ancestor === '/' ? '/' : `${ancestor}/`);
}

/** The address and every address above it, shortest first: `/a/b/c` → `/a`, `/a/b`, `/a/b/c`. */
export function selfAndAncestors(address: string): string[] {
  const segments = address.slice(1).split('/');
  return segments.map((_, i) => `/${segments.slice(0, i + 1).join('/')}`);
}

/**
 * True when `address` ends with `source` in whole segments (`/a/b/c`: `/c`, `/b/c` and `/a/b/c`):
 * an event's `source` must, for its publisher's address. Addresses have no empty segments, so a
 * suffix that starts with `/` starts a segment.
 */
export function isResourceSuffix(source: string, address: string): boolean {
  return source.length > 1 && source.startsWith('/') && address.endsWith(source);
}
