// @ts-check
/**
 * The AWS calls the product's own SDK clients make, recorded by a middleware on each client's
 * middleware stack (the clients the functions use: documentClient(), sqsClient(), kmsClient()).
 * Nothing is restated and nothing sits on the wire: each call is recorded as the SDK sends it, one
 * entry per `client.send` (the SDK's retries of a call stay inside it), with the invocation that
 * made it (`inInvocation`), when it started and ended (for the order of a path: which calls ran
 * one after another, which side by side), and its answer. DynamoDB is asked for the capacity it
 * consumed (`ReturnConsumedCapacity: INDEXES`, index entries included), which the exact budgets
 * bill by AWS's rules (test/budgets/billing.ts). Used by the cold-start bench and those budgets.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/**
 * @typedef {{ name: string, id: number }} Invocation the function invocation (an HTTP request's,
 *   a queue batch's) a call was made in
 * @typedef {{ service: string, command: string, input: Record<string, any>,
 *   output: Record<string, any> | undefined, startedAt: number, endedAt: number,
 *   invocation: Invocation | undefined, error: string | undefined }} AwsCall one `client.send`:
 *   `DynamoDB`, `SQS` or `KMS` and the low-level operation (`PutItem`, `SendMessageBatch`); the input
 *   as sent (DynamoDB's marshalled, without the ReturnConsumedCapacity the recording added); the
 *   answer (undefined when the call failed, then `error` is its name); ms since the epoch.
 * @typedef {{ middlewareStack: import('@smithy/types').MiddlewareStack<any, any> }} AnyClient
 */

const invocations = new AsyncLocalStorage();
let lastInvocationId = 0;
let lastRecordingId = 0;

/** The time the recording stamps calls with: ms since the epoch, sub-millisecond. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Runs `run` as one invocation of function `name`: every call it makes, however deep, is tagged with it.
 * @template T @param {string} name @param {() => Promise<T>} run @returns {Promise<T>}
 */
export const inInvocation = (name, run) => invocations.run({ name, id: ++lastInvocationId }, run);

/** The invocation the caller runs in (inInvocation), if any. */
export const currentInvocation = () => /** @type {Invocation | undefined} */ (invocations.getStore());

/**
 * Starts recording the calls of `clients` (the SDK clients themselves; a DynamoDBDocumentClient
 * shares its client's stack). Two middlewares: one at `initialize` times the whole call and asks
 * DynamoDB for its capacity, one at `build` keeps the input as serialized (marshalled).
 * Its `calls` are every call since the start or the last `reset`/`take` (which also forgets
 * them); `stop` removes the middleware.
 * @param {...AnyClient} clients
 */
export function recordAwsCalls(...clients) {
  const name = `recordAwsCalls${++lastRecordingId}`;
  const pending = Symbol(name);
  /** @type {AwsCall[]} */
  const calls = [];
  for (const client of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const service = String(context.clientName ?? '').replace(/Client$/, '');
        const command = String(context.commandName ?? '').replace(/Command$/, '');
        const asked = /** @type {Record<string, any>} */ (args.input);
        const input =
          service === 'DynamoDB' && asked.ReturnConsumedCapacity === undefined
            ? { ...asked, ReturnConsumedCapacity: 'INDEXES' }
            : asked;
        /** @type {AwsCall} */
        const call = {
          service,
          command,
          input: asked,
          output: undefined,
          startedAt: now(),
          endedAt: 0,
          invocation: invocations.getStore(),
          error: undefined,
        };
        /** @type {any} */ (context)[pending] = call;
        calls.push(call);
        try {
          const result = await next({ ...args, input });
          call.output = /** @type {Record<string, any>} */ (result.output);
          return result;
        } catch (error) {
          call.error = error instanceof Error ? error.name : String(error);
          throw error;
        } finally {
          call.endedAt = now();
        }
      },
      { step: 'initialize', name: `${name}Time` },
    );
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const call = /** @type {AwsCall | undefined} */ (/** @type {any} */ (context)[pending]);
        if (call) {
          const { ReturnConsumedCapacity, ...sent } = /** @type {Record<string, any>} */ (args.input);
          call.input =
            call.input.ReturnConsumedCapacity === undefined ? sent : { ...sent, ReturnConsumedCapacity };
        }
        return next(args);
      },
      { step: 'build', name: `${name}Input` },
    );
  }
  return {
    calls,
    reset: () => void calls.splice(0),
    take: () => calls.splice(0),
    stop: () => {
      for (const client of clients) {
        client.middlewareStack.remove(`${name}Time`);
        client.middlewareStack.remove(`${name}Input`);
      }
    },
  };
}
