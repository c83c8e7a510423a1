/**
 * The read and write request units AWS bills for a recorded DynamoDB call (bench/aws-calls.mjs):
 * what DynamoDB reports, plus what DynamoDB Local leaves out of its report. docs/cost-model.md
 * explains the method; capacity-rules.test.ts checks DynamoDB Local's reports against it.
 */
import { readFileSync } from 'node:fs';
import type { AwsCall } from '../../bench/aws-calls.mjs';

export interface Units {
  read: number;
  write: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a marshalled DynamoDB value, any of its shapes
type Marshalled = any;

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/**
 * The units AWS bills for one call (none for SQS's and KMS's): what DynamoDB reports
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
 *   units, and 2 per index touched, whatever the item count: checked by capacity-rules.test.ts).
 *   AWS bills two writes of every item, each its size rounded up to 1 KB, and of every index entry
 *   written (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html,
 *   "Capacity management for transactions"; item sizes:
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 *   transactionWriteUnits. The larger of the two is kept;
 * - a PartiQL batch (BatchExecuteStatement): DynamoDB Local reports nothing; AWS bills each
 *   statement as the operation it stands for (https://aws.amazon.com/dynamodb/pricing/on-demand/),
 *   a write statement at least 1 unit, its condition held or not. 1 per write statement: the only
 *   items the product writes that way are the delivery cursors, a few hundred bytes, in no index.
 */
export function billedUnits({ service, command, input, output, error }: AwsCall): Units {
  if (service !== 'DynamoDB') return { read: 0, write: 0 };
  let units = 0;
  for (const c of [output?.ConsumedCapacity ?? []].flat()) units += Number(c?.CapacityUnits ?? 0);
  if (error === 'ConditionalCheckFailedException') units += 1;
  if ((command === 'Query' || command === 'Scan') && output && units === 0) {
    units += input.ConsistentRead ? 1 : 0.5;
  }
  if (command === 'BatchGetItem' && output) {
    for (const [table, request] of Object.entries<Marshalled>(input.RequestItems ?? {})) {
      const answered =
        (output.Responses?.[table]?.length ?? 0) + (output.UnprocessedKeys?.[table]?.Keys?.length ?? 0);
      units += (request.Keys.length - answered) * (request.ConsistentRead ? 1 : 0.5);
    }
  }
  if (command === 'TransactWriteItems') units = Math.max(units, transactionWriteUnits(input));
  if (command === 'BatchExecuteStatement') {
    // A batch is all reads or all writes; the product sends only writes this way.
    const statements: { Statement: string }[] = input.Statements ?? [];
    units += statements.filter((s) => !/^\s*SELECT\b/i.test(s.Statement)).length;
  }
  return READS.has(command) ? { read: units, write: 0 } : { read: 0, write: units };
}

/** The table's global secondary indexes, from the product's own definition. */
const INDEXES: { IndexName: string; KeySchema: { AttributeName: string }[] }[] = JSON.parse(
  readFileSync(new URL('../../lib/store/table-schema.json', import.meta.url), 'utf8'),
).GlobalSecondaryIndexes;

/**
 * The size AWS counts for a marshalled item or value: attribute names' UTF-8 bytes plus each
 * value's (a number about one byte per two digits, containers 3 bytes and 1 per element).
 */
function valueSize(value: Marshalled): number {
  if (value === null || typeof value !== 'object') return 0;
  if ('S' in value) return Buffer.byteLength(value.S, 'utf8');
  if ('N' in value) return Math.ceil(String(value.N).replace(/^-|\./g, '').length / 2) + 1;
  if ('B' in value) return value.B.length ?? 0;
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return value.SS.reduce((n: number, v: string) => n + Buffer.byteLength(v), 0);
  if ('L' in value) return 3 + value.L.reduce((n: number, v: Marshalled) => n + 1 + valueSize(v), 0);
  if ('M' in value) return 3 + itemSize(value.M);
  return 0;
}

const itemSize = (item: Record<string, Marshalled>): number =>
  Object.entries(item).reduce((n, [name, value]) => n + Buffer.byteLength(name) + valueSize(value), 0);

/**
 * Write units of a transaction by AWS's rule: 2 × the item's KB (rounded up) per item, and 2 per
 * index entry written (an entry well under 1 KB). A Put's size is its item's and its entries those
 * of the indexes whose keys it holds; an Update's, its key's and values' (at least 1 KB; the item
 * it changes is not in the request) and its entries those of the indexes whose keys it sets; a
 * Delete's or ConditionCheck's 1 KB, with no entries (a lower bound: the deleted item's entries
 * are not in the request).
 */
function transactionWriteUnits(input: Record<string, Marshalled>): number {
  let units = 0;
  const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
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
      const assigned = (name: string) => new RegExp(`(^|[\\s,])${name}\\s*=`).test(set);
      units += 2 * INDEXES.filter((i) => i.KeySchema.some((k) => assigned(k.AttributeName))).length;
    } else {
      units += 2;
    }
  }
  return units;
}
