import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/**
 * Sends a conditional write: true when it was written, false when its condition failed (the item
 * was not as required), any other failure thrown. A function, not a DynamoTable method, so that
 * only the functions that make such writes bundle it.
 */
export async function conditionHeld(sending: Promise<unknown>): Promise<boolean> {
  try {
    await sending;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The one test of a single write's failed condition. (A transaction's failed condition is a
 * cancellation reason instead, `ConditionalCheckFailed`, read in `DynamoTable.transact`.)
 */
export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}
