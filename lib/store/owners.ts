import type { DynamoTable, Item } from './dynamo-table';
import { keys } from './keys';

/**
 * The owner's item: its current generation, how many live subscriptions it holds, and below which
 * generation the retired ones are removed. An owner without an item is in generation 0 with none.
 */
export interface OwnerState {
  readonly gen: number;
  readonly count: number;
  readonly cleanedTo: number;
}

export function ownerState(item: Item | undefined): OwnerState {
  return {
    gen: Number(item?.gen ?? 0),
    count: Number(item?.count ?? 0),
    cleanedTo: Number(item?.cleanedTo ?? 0),
  };
}

/** The owner's state, read consistently (shard 0 carries the generation every shard agrees on). */
export async function readOwner(table: DynamoTable, owner: string): Promise<OwnerState> {
  return ownerState(await table.get(keys.owner(owner)));
}
