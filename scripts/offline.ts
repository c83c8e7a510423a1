/**
 * Starts `serverless offline` (serverless-offline 14) against a DynamoDB endpoint and waits until
 * the API's health resource answers 200. Used by `npm start` and by the end-to-end tests.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_PATH } from '../lib/http/base-path';
import { assertPortFree, freePort } from './dynamodb-local';
import { type DeadLetterNotice, lambdaInvoker, startLocalQueue } from './local-queue';
import { PROJECT_DIR, startChild, whenReady } from './processes';

export interface OfflineOptions {
  /** HTTP port on 127.0.0.1; 0 or undefined picks a free one. */
  port?: number;
  /** e.g. http://127.0.0.1:8000 (becomes AWS_ENDPOINT_URL_DYNAMODB) */
  dynamoEndpoint: string;
  /** Extra environment, applied last (AWS_* variables reach the handlers). */
  env?: Record<string, string>;
  /** Default "local". */
  stage?: string;
  /** Do not forward serverless' output (it is still captured for errors). */
  quiet?: boolean;
  /** Readiness time-out, default 60 000. */
  timeoutMs?: number;
  /** Start the local queue and its poller (default true): delivery then runs through fanOut and deliver. */
  localQueue?: boolean;
  /** The local queue's SQLite file (default: a temporary one, removed on stop). */
  queuePath?: string;
  /** Called for every message put on the dead-letter queue. */
  onDeadLetter?: (message: DeadLetterNotice) => void;
}

export type Offline = Awaited<ReturnType<typeof startOffline>>;

const SERVERLESS_BIN = fileURLToPath(new URL('../node_modules/.bin/serverless', import.meta.url));
/** offline's hapi server, answering as the deployed HTTP API does (the file says how and why). */
const HAPI_PRELOAD = fileURLToPath(new URL('./offline-hapi.cjs', import.meta.url));

export async function startOffline({
  port,
  dynamoEndpoint,
  env = {},
  stage = 'local',
  quiet = false,
  // Offline bundles every function before it answers: on a loaded 2-core machine, with Node 24,
  // a start has taken over 60 s.
  timeoutMs = 120_000,
  localQueue = true,
  queuePath,
  onDeadLetter,
}: OfflineOptions) {
  const httpPort = port || (await freePort());
  await assertPortFree(httpPort);
  const lambdaPort = await freePort();
  // The queue listens first, so that its URL reaches the functions (serverless.yml maps
  // its queue URLs into their environment); it polls once offline's Lambda endpoint is up.
  const queue = localQueue
    ? await startLocalQueue({
        ...(queuePath ? { path: queuePath } : {}),
        ...(onDeadLetter ? { onDeadLetter } : {}),
      })
    : undefined;
  // Flags as defined in node_modules/serverless-offline/src/config/commandOptions.js.
  const args = [
    '--require',
    HAPI_PRELOAD,
    SERVERLESS_BIN,
    'offline',
    'start',
    '--stage',
    stage,
    '--host',
    '127.0.0.1',
    '--httpPort',
    String(httpPort),
    '--lambdaPort',
    String(lambdaPort),
    '--noPrependStageInUrl',
    // Locally every route is open (CONSUMER_AUTH=none on the local stage); offline cannot run IAM authorisers anyway.
    '--noAuth',
  ];
  // A build folder of this server's own (esbuild.config.cjs): packaging or another server in the
  // same checkout never removes the handlers it is running.
  const buildFolder = join('.esbuild-local', String(httpPort));
  // Its own process group, so that stop() also reaches esbuild and the Lambda workers.
  const child = startChild(process.execPath, args, {
    quiet,
    env: {
      ...process.env,
      // serverless-offline copies every AWS_* variable into the handlers' environment.
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...(queue ? queue.env : {}),
      OCLOUD_BUILD_FOLDER: buildFolder,
      ...env,
    },
  });
  const url = `http://127.0.0.1:${httpPort}${BASE_PATH}`;
  // Offline before its queue: a handler still running when the queue closed would fail to enqueue
  // (ECONNREFUSED) and answer 503, and bench:storm's clean-up after a failure logged hundreds.
  const stop = async () => {
    await child.stop();
    await queue?.stop();
    await rm(join(PROJECT_DIR, buildFolder), { recursive: true, force: true });
  };
  const healthy = async () => {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).catch(
      () => undefined,
    );
    await response?.body?.cancel();
    return response?.status === 200;
  };
  try {
    await whenReady(child, `serverless offline (${url}/health)`, healthy, timeoutMs, 250);
  } catch (error) {
    await stop();
    throw error;
  }
  queue?.startPolling(lambdaInvoker({ port: lambdaPort }));
  // url: the API root; lambdaPort: offline's Lambda invoke endpoint; output: its last 50 000 characters.
  return { url, port: httpPort, lambdaPort, queue, stop, process: child.process, output: child.output };
}
