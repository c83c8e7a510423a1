/**
 * The node's API runs the region's functions (agent/serve/api-routes.ts): each route's handler is
 * the one serverless.yml declares for that route, and its event sources invoke the functions
 * serverless.yml gives the queues. A route added to serverless.yml and not to the node fails here.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ROUTE,
  QUEUE_FUNCTIONS,
  ROTATE_WEBHOOK_KEYS,
  ROUTE_HANDLERS,
} from '../../agent/serve/api-routes';
import { serverlessYml } from '../../bench/common.mjs';
import { DEFAULT_CONSUMERS } from '../../lib/queue/event-source';
import { PROJECT_DIR } from '../../scripts/processes';

type Events = { httpApi?: '*' | { method: string; path: string }; sqs?: unknown; schedule?: unknown }[];

const { functions } = (await serverlessYml()) as unknown as {
  functions: Record<string, { handler: string; events?: Events }>;
};

async function handlerOf(declared: string): Promise<unknown> {
  const module = await import(join(PROJECT_DIR, `${declared.replace(/\.handler$/, '')}.ts`));
  return module.handler;
}

describe("the node's API and serverless.yml", () => {
  it("serves every HTTP route with serverless.yml's handler for it (health: the node's own)", async () => {
    const served: string[] = [];
    for (const fn of Object.values(functions)) {
      const event = fn.events?.[0]?.httpApi;
      if (!event) continue;
      if (event === '*') {
        expect(DEFAULT_ROUTE).toBe(await handlerOf(fn.handler));
        continue;
      }
      const path = event.path
        .replace(/^\$\{self:custom\.basePath\}/, '')
        .replace('/{proxy+}', '/{ResourceAddress}/CurrentState');
      const key = `${event.method} ${path}`;
      served.push(key);
      if (key === 'GET /health') continue;
      expect(ROUTE_HANDLERS[key as keyof typeof ROUTE_HANDLERS], key).toBe(await handlerOf(fn.handler));
    }
    expect([...Object.keys(ROUTE_HANDLERS), 'GET /health'].sort()).toEqual(served.sort());
  });

  it("invokes serverless.yml's queue and schedule functions by their keys", async () => {
    for (const consumer of DEFAULT_CONSUMERS) {
      const fn = functions[consumer.functionKey];
      expect(fn?.events?.[0]?.sqs, consumer.functionKey).toBeDefined();
      expect(QUEUE_FUNCTIONS[consumer.functionKey as keyof typeof QUEUE_FUNCTIONS]).toBe(
        await handlerOf(fn?.handler ?? ''),
      );
    }
    expect(ROTATE_WEBHOOK_KEYS).toBe(await handlerOf(functions.rotateWebhookKeys?.handler ?? ''));
  });
});
