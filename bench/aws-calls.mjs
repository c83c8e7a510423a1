// @ts-check
/**
 * The AWS calls the product's own SDK clients make, recorded by a middleware on each client's
 * middleware stack (the clients the functions use: documentClient(), sqsClient(), kmsClient()).
 * Nothing is restated and nothing sits on the wire: each call is recorded as the SDK sends it, one
 * entry per `client.send` (the SDK's retries of a call stay inside it), with the invocation that
 * made it (`inInvocation`), when it started and ended (for the order of a path: which calls ran
 * one after another, which side by side), and, for DynamoDB, the capacity DynamoDB reports: the
 * middleware asks every request for `ReturnConsumedCapacity: INDEXES` (index entries included).
 * `units` adds what DynamoDB leaves out of its report, following AWS's billing rules (billedUnits).
 * Used by the exact budgets (test/budgets) and the benchmarks alike.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * @typedef {{ name: string, id: number }} Invocation
 *   The function invocation (an HTTP request's, a queue batch's) a call was made in.
 * @typedef {{ TableName?: string, CapacityUnits?: number, ReadCapacityUnits?: number,
 *   WriteCapacityUnits?: number }} ConsumedCapacity
 *   One entry of DynamoDB's ConsumedCapacity answer (a table's total; its index details omitted).
 * @typedef {object} AwsCall
 * @property {string} service `DynamoDB`, `SQS` or `KMS` (the SDK client's name without `Client`)
 * @property {string} command the low-level operation: `PutItem`, `SendMessageBatch`, `Decrypt`
 * @property {Record<string, any>} input as sent: DynamoDB's marshalled (the document client's
 *   translation done), without the ReturnConsumedCapacity the recording added
 * @property {ConsumedCapacity[]} consumedCapacity DynamoDB's report, per table ([] elsewhere)
 * @property {{ read: number, write: number }} units read and write request units as AWS bills them
 * @property {number} startedAt ms since the epoch, sub-millisecond (performance.timeOrigin + now())
 * @property {number} endedAt
 * @property {Invocation | undefined} invocation
 * @property {string | undefined} error the error's name, when the call failed
 * @typedef {{ middlewareStack: import('@smithy/types').MiddlewareStack<any, any> }} AnyClient
 * @typedef {object} Recording
 * @property {AwsCall[]} calls every call recorded since the start or the last reset/take
 * @property {() => void} reset forgets the calls recorded so far
 * @property {() => AwsCall[]} take the calls recorded so far, forgotten by the recording
 * @property {() => void} stop removes the middleware from the clients
 */

const invocations = new AsyncLocalStorage();
let lastInvocationId = 0;
let lastRecordingId = 0;

/** The time the recording stamps calls with: ms since the epoch, sub-millisecond. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Runs `run` as one invocation of function `name`: every call it makes, however deep, is tagged
 * with it.
 * @template T
 * @param {string} name
 * @param {() => Promise<T>} run
 * @returns {Promise<T>}
 */
export function inInvocation(name, run) {
  /** @type {Invocation} */
  const invocation = { name, id: ++lastInvocationId };
  return invocations.run(invocation, run);
}

/** The invocation the caller runs in (inInvocation), if any. */
export const currentInvocation = () => /** @type {Invocation | undefined} */ (invocations.getStore());

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/**
 * The read and write request units AWS bills for one DynamoDB call: what DynamoDB reports
 * (ConsumedCapacity with INDEXES: an item's size rounded up to 1 KB per write unit, 4 KB per read
 * unit, half for an eventually consistent read, twice in a transaction, and each index entry
 * written), plus what DynamoDB Local does not report:
 * - a BatchGetItem key that finds no item: AWS processes each key as a GetItem, which for a
 *   missing item bills the smallest read, 1 unit strongly consistent, 0.5 eventually
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html);
 * - a Query that finds nothing: DynamoDB Local reports 0; AWS rounds every read up to the next
 *   4 KB, so it bills the smallest read, 0.5 unit eventually consistent, 1 strongly (same page);
 * - a conditional write refused: AWS bills the write all the same, at least 1 unit (same page,
 *   "Conditional writes"); the answer is an error without ConsumedCapacity.
 * - a transaction (TransactWriteItems): DynamoDB Local reports it as if it wrote one item (2
 *   units, and 2 per index touched, whatever the item count: checked by test/budgets). AWS bills
 *   two writes of every item, each its size rounded up to 1 KB, and of every index entry written
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html,
 *   "Capacity management for transactions"; item sizes:
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 *   transactionWriteUnits. The larger of the two is kept;
 * - a PartiQL batch (BatchExecuteStatement): DynamoDB Local reports nothing; AWS bills each
 *   statement as the operation it stands for (https://aws.amazon.com/dynamodb/pricing/on-demand/),
 *   a write statement at least 1 unit, its condition held or not. 1 per write statement: the only
 *   items the product writes that way are the delivery cursors, a few hundred bytes, in no index.
 * @param {string} command @param {Record<string, any>} input @param {any} output
 * @param {string | undefined} error
 * @returns {{ read: number, write: number }}
 */
export function billedUnits(command, input, output, error) {
  let units = 0;
  for (const c of [output?.ConsumedCapacity ?? []].flat()) units += Number(c?.CapacityUnits ?? 0);
  if (error === 'ConditionalCheckFailedException') units += 1;
  if ((command === 'Query' || command === 'Scan') && output && units === 0) {
    units += input.ConsistentRead ? 1 : 0.5;
  }
  if (command === 'BatchGetItem' && output) {
    for (const [table, request] of Object.entries(input.RequestItems ?? {})) {
      const answered =
        (output.Responses?.[table]?.length ?? 0) + (output.UnprocessedKeys?.[table]?.Keys?.length ?? 0);
      units += (request.Keys.length - answered) * (request.ConsistentRead ? 1 : 0.5);
    }
  }
  if (command === 'TransactWriteItems') units = Math.max(units, transactionWriteUnits(input));
  if (command === 'BatchExecuteStatement') {
    // A batch is all reads or all writes; the product sends only writes this way.
    const statements = /** @type {{ Statement: string }[]} */ (input.Statements ?? []);
    units += statements.filter((s) => !/^\s*SELECT\b/i.test(s.Statement)).length;
  }
  return READS.has(command) ? { read: units, write: 0 } : { read: 0, write: units };
}

/** The table's global secondary indexes, from the product's own definition. */
const INDEXES = /** @type {{ IndexName: string, KeySchema: { AttributeName: string }[] }[]} */ (
  JSON.parse(readFileSync(new URL('../lib/store/table-schema.json', import.meta.url), 'utf8'))
    .GlobalSecondaryIndexes
);

/**
 * The size AWS counts for a marshalled item or value: attribute names' UTF-8 bytes plus each
 * value's (a number about one byte per two digits, containers 3 bytes and 1 per element).
 * @param {any} value
 * @returns {number}
 */
function valueSize(value) {
  if (value === null || typeof value !== 'object') return 0;
  if ('S' in value) return Buffer.byteLength(value.S, 'utf8');
  if ('N' in value) return Math.ceil(String(value.N).replace(/^-|\./g, '').length / 2) + 1;
  if ('B' in value) return value.B.length ?? 0;
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value)
    return value.SS.reduce((/** @type {number} */ n, /** @type {string} */ v) => n + Buffer.byteLength(v), 0);
  if ('L' in value)
    return 3 + value.L.reduce((/** @type {number} */ n, /** @type {any} */ v) => n + 1 + valueSize(v), 0);
  if ('M' in value) return 3 + itemSize(value.M);
  return 0;
}

/** @param {Record<string, any>} item */
const itemSize = (item) =>
  Object.entries(item).reduce((n, [name, value]) => n + Buffer.byteLength(name) + valueSize(value), 0);

/**
 * Write units of a transaction by AWS's rule: 2 × the item's KB (rounded up) per item, and 2 per
 * index entry written (an entry well under 1 KB). A Put's size is its item's and its entries those
 * of the indexes whose keys it holds; an Update's, its key's and values' (at least 1 KB; the item
 * it changes is not in the request) and its entries those of the indexes whose keys it sets; a
 * Delete's or ConditionCheck's 1 KB, with no entries (a lower bound: the deleted item's entries
 * are not in the request).
 * @param {Record<string, any>} input
 */
export function transactionWriteUnits(input) {
  let units = 0;
  const kb = (/** @type {number} */ bytes) => Math.max(1, Math.ceil(bytes / 1024));
  for (const item of input.TransactItems ?? []) {
    if (item.Put) {
      units += 2 * kb(itemSize(item.Put.Item));
      const names = Object.keys(item.Put.Item);
      units += 2 * INDEXES.filter((i) => i.KeySchema.every((k) => names.includes(k.AttributeName))).length;
    } else if (item.Update) {
      const {
        Key,
        ExpressionAttributeValues = {},
        ExpressionAttributeNames = {},
        UpdateExpression = '',
      } = item.Update;
      units += 2 * kb(itemSize(Key) + itemSize(ExpressionAttributeValues));
      const set = String(UpdateExpression).replace(/#\w+/g, (name) => ExpressionAttributeNames[name] ?? name);
      const assigned = (/** @type {string} */ name) => new RegExp(`(^|[\\s,])${name}\\s*=`).test(set);
      units += 2 * INDEXES.filter((i) => i.KeySchema.some((k) => assigned(k.AttributeName))).length;
    } else {
      units += 2;
    }
  }
  return units;
}

/**
 * Starts recording the calls of `clients` (the SDK clients themselves; a DynamoDBDocumentClient
 * shares its client's stack). Two middlewares: one at `initialize` times the whole call and asks
 * DynamoDB for its capacity, one at `build` keeps the input as serialized (marshalled).
 * @param {...AnyClient} clients
 * @returns {Recording}
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
          consumedCapacity: [],
          units: { read: 0, write: 0 },
          startedAt: now(),
          endedAt: 0,
          invocation: invocations.getStore(),
          error: undefined,
        };
        /** @type {any} */ (context)[pending] = call;
        calls.push(call);
        /** @type {any} */
        let output;
        try {
          const result = await next({ ...args, input });
          output = result.output;
          return result;
        } catch (error) {
          call.error = error instanceof Error ? error.name : String(error);
          throw error;
        } finally {
          call.endedAt = now();
          if (service === 'DynamoDB') {
            call.consumedCapacity = [output?.ConsumedCapacity ?? []].flat();
            call.units = billedUnits(command, call.input, output, call.error);
          }
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
    reset: () => {
      calls.length = 0;
    },
    take: () => calls.splice(0),
    stop: () => {
      for (const client of clients) {
        client.middlewareStack.remove(`${name}Time`);
        client.middlewareStack.remove(`${name}Input`);
      }
    },
  };
}
