import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../config';
import { UnauthorizedError } from '../errors';

export const BASE_PATH = '/api/ocloudNotifications/v2';

/** An HTTP API v2 event whose JSON body, if any, has been parsed. */
export type HttpEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown };

/** `{scheme}://{host}/api/ocloudNotifications/v2`, from the configured public URL or the request. */
export function apiBaseUrl(event: HttpEvent): string {
  const configured = config().publicBaseUrl;
  if (configured) return `${configured}${BASE_PATH}`;
  const host = event.headers?.host ?? event.requestContext?.domainName ?? 'localhost';
  const scheme = event.headers?.['x-forwarded-proto'] ?? (config().stage === 'local' ? 'http' : 'https');
  return `${scheme}://${host}${BASE_PATH}`;
}

/** Who is calling, as the API's authoriser established it; subscriptions belong to this principal. */
export function principalOf(event: HttpEvent): string {
  const mode = config().consumerAuth;
  if (mode === 'none') return 'anonymous';
  const authorizer = (event.requestContext as { authorizer?: Authorizer }).authorizer;
  const principal =
    mode === 'iam'
      ? authorizer?.iam?.userArn
      : authorizer?.jwt?.claims?.sub && `${authorizer.jwt.claims.iss ?? ''}|${authorizer.jwt.claims.sub}`;
  if (!principal) throw new UnauthorizedError('The request carries no authenticated principal');
  return principal;
}

interface Authorizer {
  iam?: { userArn?: string };
  jwt?: { claims?: { sub?: string; iss?: string } };
}

export function pathParameter(event: HttpEvent, name: string): string {
  return event.pathParameters?.[name] ?? '';
}
