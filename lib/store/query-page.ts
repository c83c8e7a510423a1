import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Page, PageRequest } from '../domain/model';
import type { DynamoTable, Item } from './dynamo-table';

/**
 * One page of at most `request.limit` items. One item more is asked for, so that `next` is only
 * there when more follow: a list that fits one page has no next. `keyAttributes` are the table's
 * and the index's key attributes, which make a position. (A function, not a DynamoTable method,
 * so that only the functions that page bundle it.)
 */
export async function queryPage(
  table: DynamoTable,
  query: Omit<QueryCommandInput, 'TableName'>,
  request: PageRequest,
  keyAttributes: readonly string[],
): Promise<Page<Item>> {
  const result = await table.client.send(
    new QueryCommand({
      ...query,
      TableName: table.name,
      Limit: request.limit + 1,
      ExclusiveStartKey: request.after as Item | undefined,
    }),
  );
  const items = result.Items ?? [];
  const last = items[request.limit - 1];
  if (items.length <= request.limit || !last) return { items, next: result.LastEvaluatedKey };
  return {
    items: items.slice(0, request.limit),
    next: Object.fromEntries(keyAttributes.map((name) => [name, last[name]])),
  };
}
