import type { ProducerGrantStore } from '../domain/ports';
import type { DynamoTable } from './dynamo-table';
import { INDEX, keys } from './keys';

/** One item per producer principal: its granted prefixes, a string set (docs/architecture.md). */
export class DynamoProducerGrantStore implements ProducerGrantStore {
  constructor(private readonly table: DynamoTable) {}

  async grantsOf(principal: string): Promise<string[]> {
    const item = await this.table.get(keys.producerGrants(principal));
    return prefixesOf(item?.grants);
  }

  async addGrant(principal: string, prefix: string): Promise<void> {
    await this.table.update({
      Key: keys.producerGrants(principal),
      UpdateExpression: 'ADD grants :prefix SET principal = :principal, listPk = :list, listSk = :principal',
      ExpressionAttributeValues: {
        ':prefix': new Set([prefix]),
        ':principal': principal,
        ':list': keys.producers,
      },
    });
  }

  async removeGrant(principal: string, prefix: string): Promise<boolean> {
    return this.table.update({
      Key: keys.producerGrants(principal),
      UpdateExpression: 'DELETE grants :prefix',
      ConditionExpression: 'contains(grants, :one)',
      ExpressionAttributeValues: { ':prefix': new Set([prefix]), ':one': prefix },
    });
  }

  async listGrants(): Promise<{ principal: string; prefixes: string[] }[]> {
    const listed: { principal: string; prefixes: string[] }[] = [];
    for await (const items of this.table.pages({
      IndexName: INDEX.byList,
      KeyConditionExpression: 'listPk = :pk',
      ExpressionAttributeValues: { ':pk': keys.producers },
    })) {
      for (const item of items) {
        const prefixes = prefixesOf(item.grants);
        if (prefixes.length > 0) listed.push({ principal: String(item.principal), prefixes });
      }
    }
    return listed;
  }
}

function prefixesOf(grants: unknown): string[] {
  return grants instanceof Set ? [...(grants as Set<string>)].map(String).sort() : [];
}
