// @ts-check
/**
 * One cold start: a fresh Node process loads a bundle and serves its first request. Prints one
 * line `@@bench {"ms": …, "status": …}` with the time from the process' time origin to the answer.
 * Usage: node bench/cold-child.mjs <bundle.mjs | bundle.cjs>, the event (JSON) in BENCH_EVENT.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** BENCH_TRACE=1: also print when each outgoing HTTP request started and ended (ms from time origin). */
/** @type {{ started: number, target: string, ended: number }[] | undefined} */
const trace = process.env.BENCH_TRACE === '1' ? [] : undefined;
if (trace) {
  const request = http.request;
  /** @param {Parameters<typeof http.request>} args */
  const traced = (...args) => {
    const started = performance.now();
    const req = request(...args);
    const entry = { started, target: '', ended: 0 };
    trace.push(entry);
    req.on('response', (res) => {
      entry.target = `${req.method} ${req.path} ${req.getHeader('x-amz-target') ?? ''}`.trim();
      res.on('end', () => {
        entry.ended = performance.now();
      });
    });
    return req;
  };
  http.request = /** @type {typeof http.request} */ (traced);
}

const file = process.argv[2] ?? '';
const event = JSON.parse(process.env.BENCH_EVENT ?? '{}');
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'bench',
  awsRequestId: randomUUID(),
  getRemainingTimeInMillis: () => 10_000,
};
// As the Lambda runtime loads a handler: import(), for ES modules and CommonJS alike.
const { handler } = await import(pathToFileURL(file).href);
const loaded = performance.now();
const response = await handler(event, context);
const answered = performance.now();
process.stdout.write(
  `\n@@bench ${JSON.stringify({ loadMs: loaded, ms: answered, status: response?.statusCode ?? null, trace })}\n`,
  () => process.exit(0),
);
