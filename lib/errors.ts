/**
 * The one error taxonomy of the service. Every failure a caller can cause or see is one of these
 * kinds; they say what went wrong in the domain's terms and know nothing of HTTP.
 * `lib/http/problem.ts` is the single place that turns them into statuses and RFC 9457 problem
 * documents.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'conflict'
  | 'too-large'
  | 'too-many'
  | 'unavailable';

export abstract class ServiceError extends Error {
  abstract readonly kind: ErrorKind;

  constructor(
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = new.target.name;
  }
}

/** The input breaks a rule; the detail says what to fix. */
export class BadRequestError extends ServiceError {
  readonly kind = 'invalid';
}

/** The caller's identity was not established (no authenticated principal). */
export class UnauthorizedError extends ServiceError {
  readonly kind = 'unauthenticated';
}

/**
 * A limit of docs/security.md's threat table held against a caller: a producer grant, a
 * publisher's owner, a rate or a quota. Each is logged with the principal and the address, and
 * counted (lib/http/middleware.ts, `refusals()`).
 */
export interface Refusal {
  readonly rule: 'grant' | 'ownership' | 'rate' | 'quota';
  readonly principal: string;
  readonly address?: string | undefined;
}

/** The caller is known but may not do this; the detail names the rule and what to do. */
export class ForbiddenError extends ServiceError {
  readonly kind = 'forbidden';

  constructor(
    detail: string,
    readonly refusal: Refusal,
  ) {
    super(detail);
  }
}

/** The caller is over a rate or a quota; worth retrying after `retryAfterSeconds`. */
export class TooManyRequestsError extends ServiceError {
  readonly kind = 'too-many';

  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    readonly refusal: Refusal,
  ) {
    super(detail);
  }
}

export class NotFoundError extends ServiceError {
  readonly kind = 'not-found';
}

/** The thing exists already; `location` is where. */
export class ConflictError extends ServiceError {
  readonly kind = 'conflict';

  constructor(
    detail: string,
    readonly location: string,
  ) {
    super(detail);
  }
}

/** The operation does not exist for the resource; `allowed` are those that do. */
export class MethodNotAllowedError extends ServiceError {
  readonly kind = 'method-not-allowed';

  constructor(
    detail: string,
    readonly allowed: readonly string[],
  ) {
    super(detail);
  }
}

export class PayloadTooLargeError extends ServiceError {
  readonly kind = 'too-large';
}

/** A dependency (the store, a queue) is unavailable for now; worth retrying after `retryAfterSeconds`. */
export class ServiceUnavailableError extends ServiceError {
  readonly kind = 'unavailable';

  constructor(
    detail: string,
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
  }
}

/** A client's text quoted in a problem's detail, shortened so that no detail grows with the input. */
export function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
