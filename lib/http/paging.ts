import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { cursorSecret } from '../config';
import type { Page, PagePosition, PageRequest } from '../domain/model';
import { normaliseResourceAddress } from '../domain/resource-address';
import { BadRequestError, clip } from '../errors';
import { apiBaseUrl, type HttpEvent } from './request';
import { type HttpResponse, json } from './responses';

export const MAX_PAGE = 1000;
/**
 * Without `?limit=`: 500 records. A typical record is 250–350 bytes (about 150 KB a page); the
 * largest possible one (a 2,048-character EndpointUri and a 512-character address) about 2.8 KB,
 * so no page passes 1.4 MB, far below Lambda's 6 MB.
 */
export const DEFAULT_PAGE = 500;

/** Which list a cursor continues: it is valid for that list, principal and filter only. */
interface ListIdentity {
  /** The list's path below the base path. */
  readonly list:
    | 'subscriptions'
    | 'publishers'
    | `subscriptions/${string}/deliveries`
    | `subscriptions/${string}/dead-letters`;
  readonly principal: string;
  readonly filter: string | undefined;
}

export interface PagedList {
  readonly request: PageRequest;
  /** A 200 with the page as a plain JSON array and, when more follow, `Link: <…>; rel="next"`. */
  respond<T>(page: Page<T>, represent: (item: T) => unknown): HttpResponse;
}

/** Reads `limit` and `cursor` (RFC 8288 paging) of a list request. */
export function pagedList(event: HttpEvent, list: ListIdentity['list'], principal: string): PagedList {
  const query = event.queryStringParameters ?? {};
  const rawFilter = query.ResourceAddress;
  const identity: ListIdentity = {
    list,
    principal,
    filter: rawFilter === undefined ? undefined : normaliseResourceAddress(rawFilter),
  };
  const limit = parseLimit(query.limit);
  const request: PageRequest = {
    limit: limit ?? DEFAULT_PAGE,
    after: query.cursor === undefined ? undefined : openCursor(query.cursor, identity),
  };
  return {
    request,
    respond(page, represent) {
      const headers: Record<string, string> = {};
      if (page.next) {
        const params = new URLSearchParams();
        if (rawFilter !== undefined) params.set('ResourceAddress', rawFilter);
        params.set('limit', String(request.limit));
        params.set('cursor', sealCursor(page.next, identity));
        headers.Link = `<${apiBaseUrl(event)}/${list}?${params}>; rel="next"`;
      }
      return json(200, page.items.map(represent), headers);
    },
  };
}

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE) {
    throw new BadRequestError(`limit must be an integer from 1 to ${MAX_PAGE}; got "${clip(raw, 40)}"`);
  }
  return Number(raw);
}

/** `<payload>.<mac>`, both base64url: the position and whose list it is, under HMAC-SHA256. */
function sealCursor(position: PagePosition, identity: ListIdentity): string {
  const payload = Buffer.from(JSON.stringify({ ...bound(identity), k: position })).toString('base64url');
  return `${payload}.${mac(payload).toString('base64url')}`;
}

function openCursor(cursor: string, identity: ListIdentity): PagePosition {
  const [payload, signature, extra] = cursor.split('.');
  const expected = payload === undefined ? undefined : mac(payload);
  const given = Buffer.from(signature ?? '', 'base64url');
  if (
    !payload ||
    extra !== undefined ||
    !expected ||
    given.length !== expected.length ||
    !timingSafeEqual(given, expected)
  ) {
    throw invalidCursor('it was not issued by this service or was altered');
  }
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const identityNow = bound(identity);
  if (decoded.l !== identityNow.l || decoded.p !== identityNow.p || decoded.f !== identityNow.f) {
    throw invalidCursor('it belongs to another list, caller or ResourceAddress filter');
  }
  return decoded.k as PagePosition;
}

/** The principal goes in as a hash: a cursor in a URL or a log names nobody. */
function bound(identity: ListIdentity) {
  const principal = createHash('sha256').update(identity.principal).digest('base64url').slice(0, 22);
  return { l: identity.list, p: principal, f: identity.filter ?? '' };
}

function mac(payload: string): Buffer {
  return createHmac('sha256', cursorSecret()).update(payload).digest();
}

function invalidCursor(why: string): BadRequestError {
  return new BadRequestError(
    `cursor is not valid for this list (${why}); use the Link of the previous page, or list again without cursor`,
  );
}
