/**
 * Secrets never reach the logs: every line the handlers and the delivery path write, at debug
 * level, through a subscribe, a rejected secret, a failing then succeeding delivery and a rotation.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.LOG_LEVEL = 'debug'; // before lib/logger.ts reads it
});

import { trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import {
  api,
  expectJson,
  expectProblem,
  expectSubscribed,
  lockStatePublisher,
  publishAccepted,
  signingSecretOf,
} from './api';

const startConsumer = trackConsumers();
let lines: string[] = [];

beforeEach(() => {
  lines = [];
  for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
  }
  // The logger writes to stdout directly.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('signing secrets and the logs', () => {
  it('no log line carries a secret, its key bytes or a rejected secret', async () => {
    const publisher = await lockStatePublisher();
    const consumer = await startConsumer([{ status: 204 }, { status: 503 }, { status: 204 }]);
    const supplied = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const rejected = `whsec_${Buffer.alloc(8, 6).toString('base64')}`;

    expectProblem(
      await api.createSubscription({
        ResourceAddress: publisher.address,
        EndpointUri: consumer.url,
        SigningSecret: rejected,
      }),
      400,
    );
    const created = await api.createSubscription({
      ResourceAddress: publisher.address,
      EndpointUri: consumer.url,
      SigningSecret: supplied,
    });
    const info = expectSubscribed(created);
    expect(signingSecretOf(created)).toBe(supplied);
    await publishAccepted(publisher.publisherId, lockStateEvent({ node: publisher.node, value: 'FREERUN' }));
    await consumer.waitFor(3, 20_000); // initial, a 503, the retry
    const rotated = expectJson<{ SigningSecret: string }>(await api.rotateSecret(info.SubscriptionId), 200);

    expect(lines.length).toBeGreaterThan(0);
    const logged = lines.join('\n');
    for (const secret of [supplied, rejected, rotated.SigningSecret]) {
      expect(logged).not.toContain(secret);
      expect(logged).not.toContain(secret.slice('whsec_'.length));
    }
    expect(logged).not.toContain('whsec_');
  });
});
