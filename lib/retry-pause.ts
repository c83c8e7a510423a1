/**
 * The pause before sending again what an AWS call answered but left undone — keys DynamoDB left
 * unprocessed, a transaction cancelled by a conflicting one, batch entries SQS failed. The SDK's
 * own retry strategy (configured on each client) retries a call that failed; it cannot retry part
 * of an answer that succeeded, so this is the one back-off the service writes itself.
 * Full jitter over 10 ms · 2^n, at most 640 ms: retries spread out instead of colliding again.
 */
export function retryPauseMs(attempt: number, random: () => number = Math.random): number {
  return random() * 10 * 2 ** Math.min(attempt, 6);
}

export function pauseBeforeRetry(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt)));
}
