import { MethodNotAllowedError, NotFoundError } from '../errors';
import { BASE_PATH } from './base-path';

/**
 * Every route of the API, once: the 405 answers (`assertMethodAllowed`, used by the `$default` route and the GET catch-all)
 * read it, and tests hold serverless.yml and the OpenAPI document to it. Paths are relative to the
 * base path, in the OpenAPI form; `{ResourceAddress}` stands for one or more segments.
 */
export const ROUTES = [
  { method: 'POST', path: '/subscriptions' },
  { method: 'GET', path: '/subscriptions' },
  { method: 'DELETE', path: '/subscriptions' },
  { method: 'GET', path: '/subscriptions/{subscriptionId}' },
  { method: 'DELETE', path: '/subscriptions/{subscriptionId}' },
  { method: 'POST', path: '/subscriptions/{subscriptionId}/secret/rotate' },
  { method: 'GET', path: '/subscriptions/{subscriptionId}/deliveries' },
  { method: 'GET', path: '/subscriptions/{subscriptionId}/dead-letters' },
  { method: 'POST', path: '/subscriptions/{subscriptionId}/dead-letters/redrive' },
  { method: 'GET', path: '/{ResourceAddress}/CurrentState' },
  { method: 'GET', path: '/publishers' },
  { method: 'POST', path: '/publishers' },
  { method: 'GET', path: '/publishers/{publisherId}' },
  { method: 'DELETE', path: '/publishers/{publisherId}' },
  { method: 'POST', path: '/publishers/{publisherId}/events' },
  { method: 'GET', path: '/signing-keys' },
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/openapi.json' },
] as const;

export type Route = (typeof ROUTES)[number];
/** `GET /subscriptions`, … : a route's method and path, as serverless.yml writes its events. */
export type RouteKey = { [R in Route as number]: `${R['method']} ${R['path']}` }[number];

const matchers = ROUTES.map((route) => ({
  route,
  method: route.method,
  parameters: [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? ''),
  pattern: new RegExp(
    `^${BASE_PATH}${route.path
      .replace('{ResourceAddress}', '\u0000')
      .replace(/\{[^}]+\}/g, '([^/]+)')
      .replace('\u0000', '(.+)')}$`,
  ),
}));

/**
 * The route a request takes, as the HTTP API chooses it (serverless.yml): the named route with the
 * method and the path, else for any other GET under the base path the catch-all `{proxy+}` that
 * serves `{ResourceAddress}/CurrentState`; HEAD takes GET's route. Undefined: the `$default`
 * route's (404 or 405).
 */
export function routeFor(
  method: string,
  rawPath: string,
): { readonly key: RouteKey; readonly pathParameters: Record<string, string> } | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  const candidates = matchers.filter((m) => m.method === wanted);
  const found = candidates.find(
    (m) => !m.route.path.startsWith('/{ResourceAddress}') && m.pattern.test(rawPath),
  );
  if (!found) {
    return wanted === 'GET' && rawPath.startsWith(`${BASE_PATH}/`)
      ? { key: 'GET /{ResourceAddress}/CurrentState', pathParameters: {} }
      : undefined;
  }
  const values = found.pattern.exec(rawPath)?.slice(1) ?? [];
  const pathParameters = Object.fromEntries(found.parameters.map((name, i) => [name, values[i] ?? '']));
  return { key: `${found.route.method} ${found.route.path}` as RouteKey, pathParameters };
}

/** The methods the API has for a path (HEAD wherever GET is), or none when the path is unknown. */
export function methodsFor(rawPath: string): string[] {
  const methods = new Set(matchers.filter((m) => m.pattern.test(rawPath)).map((m) => m.method as string));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** Throws 405 with `Allow` when the path is one of the API's and does not have the method. */
export function assertMethodAllowed(method: string, rawPath: string): void {
  const allowed = methodsFor(rawPath);
  if (allowed.length > 0 && !allowed.includes(method)) {
    throw new MethodNotAllowedError(
      `${rawPath} does not support ${method}; it supports ${allowed.join(', ')}`,
      allowed,
    );
  }
}

/**
 * A path with an empty segment (a trailing or doubled slash) names no resource, whatever a router
 * made of it: serverless offline and API Gateway route `…/subscriptions/` as `…/subscriptions`, so a
 * script whose id variable is empty (`DELETE $B/subscriptions/$ID`) would otherwise delete every
 * subscription. Every route but CurrentState's (whose address has rules of its own) refuses it.
 */
export function assertNoEmptySegment(method: string, rawPath: string): void {
  if (!rawPath.slice(1).split('/').includes('')) return;
  throw new NotFoundError(
    `${method} ${rawPath}: the path has an empty segment (a trailing or doubled slash), so it names no resource; is an id missing?`,
  );
}
