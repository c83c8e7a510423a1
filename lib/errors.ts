/**
 * The one error taxonomy of the service. Every failure a caller can cause or see is one of these;
 * `lib/http/problem.ts` is the single place that turns them into RFC 9457 problem documents.
 */
export abstract class ServiceError extends Error {
  abstract readonly status: number;
  abstract readonly title: string;
  /** Extra response headers, e.g. `Location` on a conflict or `Retry-After` when unavailable. */
  readonly headers: Readonly<Record<string, string>> = {};

  constructor(
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = new.target.name;
  }
}

export class BadRequestError extends ServiceError {
  readonly status = 400;
  readonly title = 'Bad Request';
}

export class NotFoundError extends ServiceError {
  readonly status = 404;
  readonly title = 'Not Found';
}

export class ConflictError extends ServiceError {
  readonly status = 409;
  readonly title = 'Conflict';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(
    detail: string,
    readonly location: string,
  ) {
    super(detail);
    this.headers = { Location: location };
  }
}

export class MethodNotAllowedError extends ServiceError {
  readonly status = 405;
  readonly title = 'Method Not Allowed';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(detail: string, allowed: readonly string[]) {
    super(detail);
    this.headers = { Allow: allowed.join(', ') };
  }
}

export class PayloadTooLargeError extends ServiceError {
  readonly status = 413;
  readonly title = 'Payload Too Large';
}

export class ServiceUnavailableError extends ServiceError {
  readonly status = 503;
  readonly title = 'Service Unavailable';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(detail: string, retryAfterSeconds = 1, options?: { cause?: unknown }) {
    super(detail, options);
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
  }
}
