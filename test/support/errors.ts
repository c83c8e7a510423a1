import { expect } from 'vitest';
import { BadRequestError } from '../../lib/errors';

/** Runs `fn`, expects a BadRequestError (400) with a detail, and returns it for checks on `detail`. */
export function badRequest(fn: () => unknown): BadRequestError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, 'expected a BadRequestError to be thrown').toBeInstanceOf(BadRequestError);
  const error = thrown as BadRequestError;
  expect(error.status).toBe(400);
  expect(error.title).toBe('Bad Request');
  expect(typeof error.detail).toBe('string');
  expect(error.detail.length).toBeGreaterThan(0);
  return error;
}
