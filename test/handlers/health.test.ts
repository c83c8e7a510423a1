import { describe, expect, it } from 'vitest';
import { api } from './api';

describe('GET /health', () => {
  it('answers 200 text/plain with the body OK when the store is reachable', async () => {
    const response = await api.health();

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain(;|$)/);
    expect(response.rawBody).toBe('OK');
  });
});
