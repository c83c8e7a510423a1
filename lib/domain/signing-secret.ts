import { randomBytes } from 'node:crypto';
import { BadRequestError } from '../errors';

/**
 * A subscription's Standard Webhooks secret: `whsec_` and the base64 of the HMAC key. The standard
 * allows keys of 24 to 64 bytes; the service makes 32-byte ones.
 */
export const SECRET_PREFIX = 'whsec_';
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const GENERATED_KEY_BYTES = 32;

/** The secrets a subscription's notifications are signed with: during a rotation's grace period, two. */
export interface SigningSecrets {
  readonly current: string;
  /** The secret before the last rotation, still signed with until `previousUntil` (epoch ms). */
  readonly previous?: string;
  readonly previousUntil?: number;
}

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(GENERATED_KEY_BYTES).toString('base64')}`;
}

/** A client-supplied `SigningSecret`, or a new one when none was given. Never echoes the value. */
export function signingSecretFrom(value: unknown): string {
  if (value === undefined) return newSigningSecret();
  const problem = `SigningSecret must be "${SECRET_PREFIX}" followed by the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} random bytes (or left out, and the service makes one)`;
  if (typeof value !== 'string' || !value.startsWith(SECRET_PREFIX)) throw new BadRequestError(problem);
  const encoded = value.slice(SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Buffer skips characters outside the alphabet: only a canonical encoding round-trips.
  if (key.toString('base64') !== encoded || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new BadRequestError(problem);
  }
  return value;
}

/** The secrets to sign with at `now`: the current one, and the previous one while its grace lasts. */
export function secretsInForce(secrets: SigningSecrets | undefined, now: number): string[] {
  if (!secrets) return [];
  const { current, previous, previousUntil } = secrets;
  return previous !== undefined && previousUntil !== undefined && now < previousUntil
    ? [current, previous]
    : [current];
}
