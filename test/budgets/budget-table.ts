/**
 * The budget table: every AWS call each function makes for one request or queue batch, counted by
 * test/budgets through the product's own SDK clients, and what a notification may cost. Exact: a
 * call made once more, or once less, fails `npm test` (budget-check.ts) naming the function and
 * the call. Change a row when a change is meant to change the calls, and say why in the commit.
 */

/** Requests and the read and write units AWS bills for them (index entries included), per invocation. */
export interface CallBudget {
  fn: string;
  /** `<service> <operation>`, as the SDK sends it. */
  call: string;
  requests: number;
  read: number;
  write: number;
}

/** The call of a row saying that a function makes no AWS call at all. */
export const NO_CALL = '(no AWS call)';

// biome-ignore format: a table, one row per function and call
export const CALL_BUDGETS: readonly CallBudget[] = [
  // Issue 41: the owner's ten count shards (the subscriptions-per-owner quota) are one Query beside the
  // batch read, which no longer carries shard 0: one request and one read unit more, one read unit less.
  { fn: "createSubscription: the stack's first", call: 'DynamoDB BatchGetItem',          requests:  1, read:   2, write:  0 },
  { fn: "createSubscription: the stack's first", call: 'DynamoDB GetItem',               requests:  2, read:   2, write:  0 },
  { fn: "createSubscription: the stack's first", call: 'KMS GenerateDataKey',            requests:  1, read:   0, write:  0 },
  // The stack's first subscribe also reads the (empty) v1a key list and makes the first key: a second PutItem.
  { fn: "createSubscription: the stack's first", call: 'DynamoDB Query',                 requests:  2, read: 1.5, write:  0 },
  { fn: "createSubscription: the stack's first", call: 'DynamoDB PutItem',               requests:  2, read:   0, write:  2 },
  { fn: "createSubscription: the stack's first", call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 12 },
  { fn: 'createSubscription',                    call: 'DynamoDB BatchGetItem',          requests:  3, read:   4, write:  0 },
  // One of the three Queries reads the v1a key list (again after a key was made; then every 5 minutes per instance).
  { fn: 'createSubscription',                    call: 'DynamoDB Query',                 requests:  4, read: 2.5, write:  0 },
  { fn: 'createSubscription',                    call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 12 },
  { fn: 'createSubscription',                    call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  { fn: 'createSubscription: a cold instance',   call: 'DynamoDB BatchGetItem',          requests:  3, read:   4, write:  0 },
  { fn: 'createSubscription: a cold instance',   call: 'DynamoDB Query',                 requests:  4, read: 2.5, write:  0 },
  { fn: 'createSubscription: a cold instance',   call: 'DynamoDB GetItem',               requests:  2, read:   2, write:  0 },
  { fn: 'createSubscription: a cold instance',   call: 'KMS Decrypt',                    requests:  1, read:   0, write:  0 },
  { fn: 'createSubscription: a cold instance',   call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 12 },
  // Issue 44: one conditional UpdateItem of the state item, which keeps its event's key for repeats, instead of a
  // transaction of it and a de-duplication item (2 × two items' KB: 4 write units); the item stays within 1 KB.
  { fn: 'publishEvent',                          call: 'DynamoDB UpdateItem',            requests:  1, read:   0, write:  1 },
  { fn: 'publishEvent',                          call: 'SQS SendMessageBatch',           requests:  1, read:   0, write:  0 },
  { fn: 'fanOut',                                call: 'DynamoDB Query',                 requests:  6, read:   3, write:  0 },
  // Issue 44: a batch of fewer than ten packs is delivered where it is fanned out (lib/delivery/fan-out.ts):
  // the lone event's delivery message is not sent (SendMessageBatch 1 → 0), and deliver's calls are made here.
  { fn: 'fanOut',                                call: 'DynamoDB BatchGetItem',          requests:  2, read:   2, write:  0 },
  { fn: 'fanOut',                                call: 'DynamoDB UpdateItem',            requests:  1, read:   0, write:  1 },
  { fn: 'deliver',                               call: 'DynamoDB BatchGetItem',          requests:  2, read:   2, write:  0 },
  // Issue 44: the lease's write moves the cursor ahead; a 2xx writes nothing more (its completion statement,
  // BatchExecuteStatement 1 request and 1 write unit, went): docs/delivery.md, "Ordering cursors".
  { fn: 'deliver',                               call: 'DynamoDB UpdateItem',            requests:  1, read:   0, write:  1 },
  { fn: 'getSubscription',                       call: 'DynamoDB BatchGetItem',          requests:  1, read:   2, write:  0 },
  { fn: 'listSubscriptions',                     call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  { fn: 'listSubscriptions',                     call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  { fn: 'rotateSubscriptionSecret',              call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  { fn: 'rotateSubscriptionSecret',              call: 'DynamoDB UpdateItem',            requests:  1, read:   0, write:  3 },
  { fn: 'listDeliveries',                        call: 'DynamoDB BatchGetItem',          requests:  1, read:   2, write:  0 },
  { fn: 'listDeliveries',                        call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  { fn: 'listDeadLetters',                       call: 'DynamoDB BatchGetItem',          requests:  1, read:   2, write:  0 },
  { fn: 'listDeadLetters',                       call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  { fn: 'redriveDeadLetters',                    call: 'DynamoDB BatchGetItem',          requests:  1, read:   2, write:  0 },
  { fn: 'redriveDeadLetters',                    call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  { fn: 'deleteSubscription',                    call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  { fn: 'deleteSubscription',                    call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write:  8 },
  { fn: 'deleteSubscription',                    call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  { fn: 'getCurrentState',                       call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  { fn: 'listPublishers',                        call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  { fn: 'health',                                call: 'DynamoDB GetItem',               requests:  1, read: 0.5, write:  0 },
  { fn: 'openApi',                               call: NO_CALL,                          requests:  0, read:   0, write:  0 },
  { fn: 'notFound',                              call: NO_CALL,                          requests:  0, read:   0, write:  0 },
  { fn: 'createPublisher',                       call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 10 },
  // Issue 41: a named producer's grants are one GetItem before the transaction.
  { fn: 'createPublisher: a named producer',     call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  // ... and its count of publishers (the quota) is one more item of the transaction: 2 write units.
  { fn: 'createPublisher: a named producer',     call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 12 },
  { fn: 'getPublisher',                          call: 'DynamoDB GetItem',               requests:  1, read:   1, write:  0 },
  { fn: 'deletePublisher',                       call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 10 },
  { fn: 'deleteAllSubscriptions',                call: 'DynamoDB Query',                 requests:  1, read:   1, write:  0 },
  { fn: 'deleteAllSubscriptions',                call: 'DynamoDB TransactWriteItems',    requests:  1, read:   0, write: 22 },
  { fn: 'deleteAllSubscriptions',                call: 'SQS SendMessageBatch',           requests:  1, read:   0, write:  0 },
  { fn: 'removeRetiredSubscriptions',            call: 'DynamoDB Query',                 requests:  3, read: 1.5, write:  0 },
  { fn: 'removeRetiredSubscriptions',            call: 'DynamoDB DeleteItem',            requests:  2, read:   0, write:  6 },
  { fn: 'removeRetiredSubscriptions',            call: 'DynamoDB UpdateItem',            requests:  1, read:   0, write:  1 },
  { fn: 'listSigningKeys',                       call: 'DynamoDB Query',                 requests:  1, read: 0.5, write:  0 },
  // Warm, with the key list read within 5 minutes and the signing key young: nothing to do. (A daily
  // run is usually a new instance: one Query more, and the data key's GetItem and Decrypt when it makes a key.)
  { fn: 'rotateWebhookKeys',                     call: NO_CALL,                          requests:  0, read:   0, write:  0 },
  { fn: 'emitGauges',                            call: 'DynamoDB Query',                 requests:  1, read:   1, write:  0 },
];

/**
 * A notification's AWS work, the totals of each counted run (notifications.test.ts): write units,
 * SQS requests (the functions' and the event sources' receives and deletes), KMS requests and
 * Lambda invocations exactly; DynamoDB requests and read units at most (the deliverer coalesces a
 * batch's reads and completions as they come, so a read shared by two attempts varies a little
 * with timing: 10,856.5 and 10,840 read units in two runs of 10,000) and the price at most,
 * in $ per million notifications (cost-model.ts: prices, modelled durations).
 */
// biome-ignore format: a table, one row per flow
export const FLOW_BUDGETS = {
  // Issue 44, each row's reasons: (1) the publish is one UpdateItem of 1 write unit where its transaction was 4
  // (the state item keeps its event's key); (2) the cursor's lease moves it ahead and a 2xx writes nothing (its
  // completion, 1 write unit, went); (3) fan-out delivers a batch of fewer than ten packs itself, so the lone
  // event skips the delivery queue's hop: 3 SQS requests and an invocation fewer.
  // One subscriber: DynamoDB 11 → 10 requests, 6 → 2 write units; SQS 6 → 3; invocations 3 → 2; $8.49 → $4.55.
  'one subscriber':     { notifications: 1,      dynamoRequests: 10,    readUnits: 5,    writeUnits: 2,     sqsRequests: 3,    kmsRequests: 0, invocations: 2,    dollarsPerMillion: 4.55 },
  // A large fan-out (packs of 25 queued as before): write units 2,004 → 1,001 ((1), (2)); $1.42 → $0.77.
  '1,000 subscribers':  { notifications: 1000,   dynamoRequests: 1060,  readUnits: 1086, writeUnits: 1001,  sqsRequests: 15,   kmsRequests: 0, invocations: 6,    dollarsPerMillion: 0.78 },
  '10,000 subscribers': { notifications: 10_000, dynamoRequests: 10600, readUnits: 10856.5, writeUnits: 10001, sqsRequests: 133, kmsRequests: 0, invocations: 44,   dollarsPerMillion: 0.78 },
  // The storm: write units 742 → 240 ((1): 80 publishes of 1 unit, some of 2 before within a transaction's 6;
  // (2): 160 completions); each batch of ten events is delivered where fanned out ((3): SQS 106 → 96, invocations
  // 89 → 88), each batch reading its own subscriptions (read units 127 → 142); $3.90 → $1.92.
  'storm layout':       { notifications: 160,    dynamoRequests: 470,   readUnits: 142,  writeUnits: 240,   sqsRequests: 96,   kmsRequests: 0, invocations: 88,   dollarsPerMillion: 1.92 },
};
export type FlowName = keyof typeof FLOW_BUDGETS;

/** Sequential AWS calls plus queue hops from POST …/events to a consumer's first byte. */
// Issue 44: 7 → 5: the lone event's notification is delivered by the fan-out that finds its subscriber.
export const CRITICAL_PATH_BUDGET = { hops: 5 };
