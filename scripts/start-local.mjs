// @ts-check
/**
 * `npm start`: DynamoDB Local (data kept in .data/dynamodb) + `serverless offline` on PORT (3000),
 * with the local queue (messages kept in .data/queue.db) and its poller.
 * Env: PORT, DYNAMODB_PORT (default: a free port), LOCAL_DYNAMODB_DIR (default: .data/dynamodb),
 * LOCAL_QUEUE_FILE (default: .data/queue.db).
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertPortFree, checkJava, ensureTable, startDynamoDbLocal } from './dynamodb-local.mjs';
import { startOffline } from './offline.mjs';

export const STAGE = 'local';
/** `${self:service}-${sls:stage}` in serverless.yml for the local stage. */
export const TABLE_NAME = `ocloud-notifications-${STAGE}`;
const DATA_DIR =
  process.env.LOCAL_DYNAMODB_DIR || fileURLToPath(new URL('../.data/dynamodb', import.meta.url));
/** The local queue's messages: what was accepted and not yet delivered survives a restart. */
export const QUEUE_FILE =
  process.env.LOCAL_QUEUE_FILE || fileURLToPath(new URL('../.data/queue.db', import.meta.url));

/**
 * Dead letters are rare and always need a person: say which subscription, which event and why.
 * @param {{ body: string, deadLetterSourceQueue: string | undefined }} message
 */
function reportDeadLetter({ body, deadLetterSourceQueue }) {
  try {
    const letter = JSON.parse(body);
    const what = letter.event ? `event ${letter.event.source} ${letter.event.id}` : 'a message';
    const why = deadLetterSourceQueue
      ? `received too often on the ${deadLetterSourceQueue} queue`
      : (letter.reason ?? 'no reason given');
    console.error(`dead-lettered: ${what} for subscription ${letter.subscriptionId ?? '?'}: ${why}`);
  } catch {
    console.error(`dead-lettered from ${deadLetterSourceQueue ?? 'delivery'}: ${body.slice(0, 200)}`);
  }
}

async function main() {
  const port = Number(process.env.PORT || 3000);
  const dynamoPort = Number(process.env.DYNAMODB_PORT || 0);
  /** @type {Array<() => Promise<void>>} */
  const running = [];
  let stopping = false;
  /** @param {number} code */
  const shutdown = async (code) => {
    if (stopping) return;
    stopping = true;
    for (const stop of running.reverse()) await stop();
    process.exit(code);
  };
  process.on('SIGINT', () => shutdown(130));
  process.on('SIGTERM', () => shutdown(143));

  try {
    checkJava();
    await assertPortFree(port);
    await mkdir(DATA_DIR, { recursive: true });
    const db = await startDynamoDbLocal({ port: dynamoPort, dbPath: DATA_DIR, quiet: true });
    running.push(db.stop);
    db.process.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(`DynamoDB Local exited (${code ?? signal}); stopping.`);
      shutdown(1);
    });
    await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
    console.log(`DynamoDB Local at ${db.endpoint}, table ${TABLE_NAME}, data in ${DATA_DIR}`);

    const offline = await startOffline({
      port,
      dynamoEndpoint: db.endpoint,
      stage: STAGE,
      queuePath: QUEUE_FILE,
      onDeadLetter: reportDeadLetter,
    }).catch((error) => {
      // Its output was forwarded already: keep only the headline.
      throw new Error(String(error.message).split('\n')[0]);
    });
    running.push(offline.stop);
    offline.process.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(`serverless offline exited (${code ?? signal}); stopping.`);
      shutdown(code ?? 1);
    });
    console.log(
      `Local queue (SQS protocol) at ${offline.queue?.url}, messages in ${QUEUE_FILE}; dead letters: npm run dead-letters`,
    );
    console.log(`\nO-Cloud Notification API ready at ${offline.url}\n`);
  } catch (error) {
    if (stopping) return;
    console.error(error instanceof Error ? error.message : String(error));
    await shutdown(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
