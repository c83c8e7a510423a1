import { describe, expect, it } from 'vitest';
import { api, expectProblem } from './api';

const ID = '3f1c7c1e-9d7a-4c55-8f0e-1b2a3c4d5e6f';

describe('a known path with a method it lacks ($default route)', () => {
  it.each([
    ['PUT', '/subscriptions', 'DELETE, GET, HEAD, POST'],
    ['PATCH', `/subscriptions/${ID}`, 'DELETE, GET, HEAD'],
    ['GET', `/subscriptions/${ID}/secret/rotate`, 'POST'],
    ['POST', '/health', 'GET, HEAD'],
    ['DELETE', '/publishers', 'GET, HEAD, POST'],
    ['PUT', `/publishers/${ID}`, 'DELETE, GET, HEAD'],
    ['GET', `/publishers/${ID}/events`, 'POST'],
    ['POST', '/east-edge-10/site-3/node-7/sync/ptp-status/lock-state/CurrentState', 'GET, HEAD'],
    ['DELETE', '/openapi.json', 'GET, HEAD'],
    ['OPTIONS', '/subscriptions', 'DELETE, GET, HEAD, POST'],
  ])('%s %s → 405 with Allow: %s', async (method, path, allow) => {
    const response = await api.unrouted(method, path);
    expectProblem(response, 405, `supports ${allow}`);
    expect(response.headers.allow).toBe(allow);
  });

  it('a GET that reaches the CurrentState catch-all for a path without GET is 405 too', async () => {
    const response = await api.getPath(`/publishers/${ID}/events`);
    expectProblem(response, 405, 'supports POST');
    expect(response.headers.allow).toBe('POST');
  });

  it('answers 404 for a path the API does not have', async () => {
    expect((await api.unrouted('POST', '/no-such-collection')).headers.allow).toBeUndefined();
    expectProblem(await api.unrouted('POST', '/no-such-collection'), 404, 'No route for POST');
    expectProblem(await api.unrouted('DELETE', `/subscriptions/${ID}/secret`), 404);
  });
});
