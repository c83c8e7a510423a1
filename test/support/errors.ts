import { expect } from 'vitest';
import { BadRequestError } from '../../lib/errors';

/** Runs `fn`, expects it to throw an instance of `type`, and returns that error for further checks. */
export function thrown<E extends Error>(fn: () => unknown, type: abstract new (...args: never[]) => E): E {
  let error: unknown;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  expect(error, `expected a ${type.name} to be thrown`).toBeInstanceOf(type);
  return error as E;
}

/** Runs `fn`, expects a BadRequestError (a 400) with a detail, and returns it for checks on `detail`. */
export function badRequest(fn: () => unknown): BadRequestError {
  const error = thrown(fn, BadRequestError);
  expect(error.kind).toBe('invalid');
  expect(typeof error.detail).toBe('string');
  expect(error.detail.length).toBeGreaterThan(0);
  return error;
}
