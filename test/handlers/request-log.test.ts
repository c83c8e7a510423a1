/**
 * The request-outcome line: every request that fails carries its status (the problem document is
 * made before the line is written), and every line carries Powertools' Lambda context keys and the
 * release's version.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.LOG_LEVEL = 'debug'; // before lib/logger.ts reads it
});

import { version } from '../../package.json';
import { api, expectProblem } from './api';

type LogLine = { level: string; message: string; status?: number; route?: string } & Record<string, unknown>;
let lines: LogLine[] = [];

beforeEach(() => {
  lines = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const text of String(chunk).split('\n')) {
        if (text.startsWith('{') && !text.includes('"_aws"')) lines.push(JSON.parse(text) as LogLine);
      }
      return true;
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

const outcome = () => lines.filter((line) => line.message === 'request');

describe('the request-outcome log line', () => {
  it('carries the status of a request that failed with a problem document', async () => {
    expectProblem(await api.getSubscription('f47ac10b-58cc-4372-a567-0e02b2c3d479'), 404);
    expect(outcome()).toEqual([
      expect.objectContaining({
        level: 'DEBUG',
        status: 404,
        route: 'GET /api/ocloudNotifications/v2/subscriptions/{subscriptionId}',
        function_request_id: expect.any(String),
        cold_start: expect.any(Boolean),
        // The release that wrote it (package.json's version), on every line of every function.
        serviceVersion: version,
      }),
    ]);
  });

  it('carries the status of a request refused before its handler ran', async () => {
    expectProblem(await api.createSubscription('{not json'), 400);
    expect(outcome()).toEqual([expect.objectContaining({ status: 400 })]);
  });

  it('keeps no key of one request on the next', async () => {
    await api.getSubscription('f47ac10b-58cc-4372-a567-0e02b2c3d479');
    await api.listSubscriptions();
    const [first, second] = outcome();
    expect(first?.route).toContain('{subscriptionId}');
    expect(second).toMatchObject({ status: 200, route: 'GET /api/ocloudNotifications/v2/subscriptions' });
    expect(second?.function_request_id).not.toBe(first?.function_request_id);
  });
});
