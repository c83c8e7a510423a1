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
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
