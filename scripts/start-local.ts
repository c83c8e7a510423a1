/**
 * `npm start`: DynamoDB Local (data kept in .data/dynamodb) + `serverless offline` on PORT (3000),
 * with the local queue (messages kept in .data/queue.db) and its poller, the local dashboard and
 * the status line. Its settings (PORT, DASHBOARD_PORT, DYNAMODB_PORT, LOCAL_DYNAMODB_DIR,
 * LOCAL_QUEUE_FILE, LOG_LEVEL, ENDPOINT_CA_FILE): the README's table and docs/local-run.md.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMetricsHistory } from './dashboard/metrics';
import { createTraceJournal } from './dashboard/notification-path';
import { startDashboard } from './dashboard/server';
import { assertPortFree, checkJava, ensureTable } from './dynamodb-local';
import { recordLaunch, stopLeftovers } from './leftovers';
import { type DeadLetterNotice, lambdaInvoker } from './local-queue';
import { ensureLocalTls } from './local-tls';
import { startOffline } from './offline';
import { until } from './processes';
import { createLocalConsole } from './status-line';
import { superviseDynamoDbLocal } from './supervised-dynamodb';

export const STAGE = 'local';
/** `${self:service}-${sls:stage}` in serverless.yml for the local stage. */
export const TABLE_NAME = `ocloud-notifications-${STAGE}`;
export const DATA_DIR =
  process.env.LOCAL_DYNAMODB_DIR || fileURLToPath(new URL('../.data/dynamodb', import.meta.url));
/** Where a running `npm start` says its DynamoDB Local answers, for the tools beside it (npm run grants). */
export const ENDPOINT_FILE = join(DATA_DIR, 'endpoint');
const STATUS_EVERY_MS = 5000;
/** The local queue's messages: what was accepted and not yet delivered survives a restart. */
export const QUEUE_FILE =
  process.env.LOCAL_QUEUE_FILE || fileURLToPath(new URL('../.data/queue.db', import.meta.url));

/** Dead letters are rare and always need a person: say which subscription, which event and why. */
function reportDeadLetter({ body, deadLetterSourceQueue }: DeadLetterNotice) {
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
  const running: Array<() => Promise<void>> = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const stop of running.reverse()) await stop();
    process.exit(code);
  };
  process.on('SIGINT', () => shutdown(130));
  process.on('SIGTERM', () => shutdown(143));

  try {
    checkJava();
    await mkdir(DATA_DIR, { recursive: true });
    const stopped = await stopLeftovers(DATA_DIR);
    if (stopped.length > 0) {
      console.log(`Stopped what a previous npm start left running: ${stopped.join(', ')}`);
      // A port a killed process held comes free a moment after it exits.
      const portFree = () =>
        assertPortFree(port)
          .then(() => true)
          .catch(() => undefined);
      await until(portFree, `port ${port} to come free`, 5000).catch(() => undefined);
    }
    await assertPortFree(port);
    const launch = recordLaunch(DATA_DIR);
    running.push(launch.forget);
    const db = await superviseDynamoDbLocal({
      port: dynamoPort,
      dbPath: DATA_DIR,
      onStarted: (pid) => launch.record('DynamoDB Local', pid),
    });
    launch.record('DynamoDB Local', db.process().pid);
    running.push(db.stop);
    await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
    await writeFile(ENDPOINT_FILE, db.endpoint);
    running.push(() => rm(ENDPOINT_FILE, { force: true }));
    console.log(
      `DynamoDB Local at ${db.endpoint} (pid ${db.process().pid}), table ${TABLE_NAME}, data in ${DATA_DIR}`,
    );

    const tls = ensureLocalTls();
    console.log(tls.note);

    const debug = process.env.LOG_LEVEL === 'debug';
    const history = createMetricsHistory();
    const journal = createTraceJournal();
    const offline = await startOffline({
      port,
      dynamoEndpoint: db.endpoint,
      stage: STAGE,
      quiet: true,
      queuePath: QUEUE_FILE,
      onDeadLetter: reportDeadLetter,
      env: tls.env,
    });
    running.push(offline.stop);
    launch.record('serverless offline', offline.process.pid);
    const dashboard = await startDashboard({
      history,
      journal,
      api: offline.url,
      port: Number(process.env.DASHBOARD_PORT || port + 1),
      portRequired: Boolean(process.env.DASHBOARD_PORT),
    });
    running.push(dashboard.stop);
    const localConsole = createLocalConsole({ debug, onMetrics: history.record });
    if (debug) process.stdout.write(offline.output());
    for (const input of [offline.process.stdout, offline.process.stderr]) {
      if (input)
        createInterface({ input }).on('line', (line) => {
          localConsole.line(line);
          journal.line(line);
        });
    }
    // The gauges (active subscriptions and publishers) come from the function that emits them
    // every minute when deployed; here it runs as often as the status line.
    const invoke = lambdaInvoker({ port: offline.lambdaPort });
    // The v1a signing key exists before the first subscribe, so that its initial notification
    // carries v1a too (deployed, the daily rotateWebhookKeys and the first subscribe make it).
    await invoke('rotateWebhookKeys', {}).catch((error: unknown) =>
      console.error(
        `Could not make the v1a signing key yet: ${error instanceof Error ? error.message : error}`,
      ),
    );
    const showStatus = async () => {
      await invoke('emitGauges', {}).catch(() => undefined);
      const status = localConsole.status();
      if (status && !stopping) console.log(status);
    };
    const timer = setInterval(showStatus, STATUS_EVERY_MS);
    running.push(async () => clearInterval(timer));
    offline.process.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(`serverless offline exited (${code ?? signal}); stopping.`);
      shutdown(code ?? 1);
    });
    console.log(
      `Local queue (SQS protocol) at ${offline.queue?.url}, messages in ${QUEUE_FILE}; dead letters: npm run dead-letters`,
    );
    console.log(`\nO-Cloud Notification API ready at ${offline.url}`);
    console.log(`Notifications by trace id (traceresponse, traceparent) at ${dashboard.url}/notifications`);
    console.log(`Local dashboard at ${dashboard.url}\n`);
    if (!debug)
      console.log(
        `A status line every ${STATUS_EVERY_MS / 1000} s when something changed; LOG_LEVEL=debug npm start shows every log line.`,
      );
    await showStatus();
  } catch (error) {
    if (stopping) return;
    console.error(error instanceof Error ? error.message : String(error));
    await shutdown(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
