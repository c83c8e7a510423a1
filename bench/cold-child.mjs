// @ts-check
/**
 * One cold start: a fresh Node process loads a bundle and serves its first request. Prints one
 * line `@@bench {"ms": …, "status": …}` with the time from the process' time origin to the answer.
 * Usage: node bench/cold-child.mjs <bundle.cjs>, the event (JSON) in BENCH_EVENT.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const file = process.argv[2] ?? '';
const event = JSON.parse(process.env.BENCH_EVENT ?? '{}');
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'bench',
  awsRequestId: randomUUID(),
  getRemainingTimeInMillis: () => 10_000,
};
const { handler } = createRequire(import.meta.url)(file);
const loaded = performance.now();
const response = await handler(event, context);
const answered = performance.now();
process.stdout.write(
  `\n@@bench ${JSON.stringify({ loadMs: loaded, ms: answered, status: response?.statusCode ?? null })}\n`,
  () => process.exit(0),
);
