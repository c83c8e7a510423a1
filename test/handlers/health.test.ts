import { describe, expect, it } from 'vitest';
import { version } from '../../package.json';
import { api } from './api';

describe('GET /health', () => {
  it('answers 200 text/plain with the body OK when the store is reachable', async () => {
    const response = await api.health();

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain(;|$)/);
    expect(response.rawBody).toBe('OK');
  });

  it('names the running release in X-Service-Version, the body staying OK for plain callers', async () => {
    const response = await api.health();
    expect(response.headers['x-service-version']).toBe(version);
    expect(response.headers['x-service-version']).toMatch(/^\d+\.\d+\.\d+/);
  });
});
