/**
 * The ports the tests and npm start pick for a server that binds later (scripts/dynamodb-local.ts):
 * below the kernel's ephemeral range, so no connection made meanwhile on this machine can take one.
 */

import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
const firstEphemeral = (() => {
  try {
    return Number(readFileSync(RANGE, 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
})();

describe('freePort', () => {
  it.skipIf(firstEphemeral === undefined)('answers a free port below the ephemeral range', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(firstEphemeral ?? 0);
    }
    const server = createServer().listen(ports[0], '127.0.0.1');
    await once(server, 'listening');
    server.close();
  });
});
