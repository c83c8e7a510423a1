/**
 * Structured JSON logs through Powertools for AWS Lambda's Logger: one JSON object a line, with the
 * service name (POWERTOOLS_SERVICE_NAME, serverless.yml), the level, and, once a handler's
 * `injectLambdaContext` middleware has run, the function's name, request id, cold-start flag and
 * X-Ray trace id. Every line also names the release that wrote it (`serviceVersion`). The level is
 * LOG_LEVEL as lib/config.ts reads it (an unknown value fails the start). Keys appended during an
 * invocation are cleared at the next one (`resetKeys`).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { version } from '../package.json';
import { logLevel } from './config';

export const logger = new Logger({
  logLevel: logLevel().toUpperCase() as Uppercase<ReturnType<typeof logLevel>>,
  // Which release wrote the line (package.json's version, inlined by esbuild when bundled).
  persistentKeys: { serviceVersion: version },
});
