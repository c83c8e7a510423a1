import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../config';
import { type Producer, UNNAMED_PRODUCER } from '../domain/producers';
import { BadRequestError, UnauthorizedError } from '../errors';
import { BASE_PATH } from './base-path';

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

/**
 * Without consumer authentication (the local stage only) a caller may still name itself, so that
 * two consumers on one machine own their subscriptions apart: one that deletes all of its own (as
 * Red Hat's reference consumer does on a 409) then leaves the other's alone. Deployed stages ignore
 * the header: there the authoriser says who is calling.
 */
export const LOCAL_CONSUMER_HEADER = 'x-consumer-id';
const LOCAL_CONSUMER_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Who is calling, as the API's authoriser established it; subscriptions belong to this principal. */
export function principalOf(event: HttpEvent): string {
  const mode = config().consumerAuth;
  if (mode === 'none') return localPrincipal(event.headers?.[LOCAL_CONSUMER_HEADER]);
  const authorizer = (event.requestContext as { authorizer?: Authorizer }).authorizer;
  const principal =
    mode === 'iam'
      ? authorizer?.iam?.userArn
      : authorizer?.jwt?.claims?.sub && `${authorizer.jwt.claims.iss ?? ''}|${authorizer.jwt.claims.sub}`;
  if (!principal) throw new UnauthorizedError('The request carries no authenticated principal');
  return principal;
}

function localPrincipal(named: string | undefined): string {
  if (named === undefined) return 'anonymous';
  if (!LOCAL_CONSUMER_ID.test(named)) {
    throw new BadRequestError(
      `X-Consumer-Id must be 1 to 128 letters, digits or . _ : @ - (it names the caller that owns the subscriptions); got ${JSON.stringify(named.slice(0, 40))}`,
    );
  }
  return `local:${named}`;
}

/**
 * On the local stage a producer may name itself, as a consumer does: a named producer is held to
 * the grants `npm run grants` gives it; one that names none is the unnamed producer, granted every
 * address, so that `npm start`, the agent and the tools work with no set-up (docs/security.md).
 */
export const LOCAL_PRODUCER_HEADER = 'x-producer-id';

/** Who is producing: the IAM caller deployed (producer routes always use IAM), or the local header. */
export function producerOf(event: HttpEvent): Producer {
  if (config().stage === 'local') {
    const named = event.headers?.[LOCAL_PRODUCER_HEADER];
    if (named === undefined) return { principal: UNNAMED_PRODUCER, grantedAll: true };
    if (!LOCAL_CONSUMER_ID.test(named)) {
      throw new BadRequestError(
        `X-Producer-Id must be 1 to 128 letters, digits or . _ : @ - (it names the producer whose grants apply); got ${JSON.stringify(named.slice(0, 40))}`,
      );
    }
    return { principal: `local:${named}`, grantedAll: false };
  }
  const authorizer = (event.requestContext as { authorizer?: Authorizer }).authorizer;
  const principal =
    authorizer?.iam?.userArn ??
    (authorizer?.jwt?.claims?.sub && `${authorizer.jwt.claims.iss ?? ''}|${authorizer.jwt.claims.sub}`);
  if (!principal) throw new UnauthorizedError('The request carries no authenticated principal');
  return { principal, grantedAll: false };
}

interface Authorizer {
  iam?: { userArn?: string };
  jwt?: { claims?: { sub?: string; iss?: string } };
}

export function pathParameter(event: HttpEvent, name: string): string {
  return event.pathParameters?.[name] ?? '';
}
