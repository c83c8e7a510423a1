import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../../lib/logger';
import { signingWebhookKeys } from '../../lib/services';
import { tracing } from '../../lib/tracing';

/**
 * Runs daily: makes the next `v1a` key when the signing key's time is nearly up (listed from now,
 * signing `WEBHOOK_KEY_PUBLISH_LEAD_SECONDS` later), so keys rotate even when no one subscribes.
 */
export const handler = middy<unknown, void, Error, Context>()
  .use(tracing())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    await signingWebhookKeys().ensure(Date.now());
  });
