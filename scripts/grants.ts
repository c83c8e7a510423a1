/**
 * `npm run grants -- add <principal> <address-prefix>`, `remove <principal> <address-prefix>`,
 * `list`: the address prefixes each producer principal may register publishers under
 * (docs/security.md). The local stage by default: the table of `npm start`, through its DynamoDB
 * Local when it runs (the endpoint it writes beside its data), or a DynamoDB Local of its own on
 * that data when it does not. `--stage <name>`: that deployed stage's table, with the caller's AWS
 * credentials (`--region`, else AWS_REGION, else us-east-1 as serverless.yml).
 */
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { grantPrefix } from '../lib/domain/producers';
import { documentClient } from '../lib/store/dynamo-client';
import { DynamoTable } from '../lib/store/dynamo-table';
import { DynamoProducerGrantStore } from '../lib/store/producer-grant-store';
import { dynamoClient, ensureTable, startDynamoDbLocal } from './dynamodb-local';
import { DATA_DIR, ENDPOINT_FILE, TABLE_NAME } from './start-local';

const USAGE = `usage: npm run grants -- [--stage <name>] [--region <region>] add <principal> <address-prefix>
       npm run grants -- [--stage <name>] [--region <region>] remove <principal> <address-prefix>
       npm run grants -- [--stage <name>] [--region <region>] list
A principal is the producer's IAM caller ARN deployed, local:<X-Producer-Id> on the local stage;
a prefix is an address such as /cluster-1/site-1/node-1 (it and everything under it), or / for all.`;

/** The running `npm start`'s DynamoDB Local, if it answers. */
async function runningLocalEndpoint(): Promise<string | undefined> {
  if (!existsSync(ENDPOINT_FILE)) return undefined;
  const endpoint = readFileSync(ENDPOINT_FILE, 'utf8').trim();
  const client = dynamoClient(endpoint);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2000) });
    return endpoint;
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

/** Points lib/store at the stage's table; returns what to stop afterwards. */
async function connect(stage: string, region: string | undefined): Promise<() => Promise<void>> {
  if (stage !== 'local') {
    process.env.AWS_REGION = region ?? process.env.AWS_REGION ?? 'us-east-1';
    return async () => undefined;
  }
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  const running = await runningLocalEndpoint();
  if (running) {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = running;
    return async () => undefined;
  }
  // npm start is not running: its data, through a DynamoDB Local of our own for this command.
  const db = await startDynamoDbLocal({ dbPath: DATA_DIR, quiet: true });
  await ensureTable({ endpoint: db.endpoint, tableName: TABLE_NAME });
  process.env.AWS_ENDPOINT_URL_DYNAMODB = db.endpoint;
  return db.stop;
}

export async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, principal, rawPrefix, ...extra] = positionals;
  const arity = command === 'list' ? 1 : 3;
  if (
    !['add', 'remove', 'list'].includes(command ?? '') ||
    positionals.length !== arity ||
    extra.length > 0
  ) {
    console.error(USAGE);
    return 2;
  }
  const stage = values.stage ?? 'local';
  let prefix = '';
  if (command !== 'list') {
    if (!principal?.trim()) {
      console.error(`the principal must not be empty\n${USAGE}`);
      return 2;
    }
    try {
      prefix = grantPrefix(rawPrefix);
    } catch (error) {
      console.error((error as Error).message);
      return 2;
    }
  }
  const stop = await connect(stage, values.region);
  try {
    const table = stage === 'local' ? TABLE_NAME : `ocloud-notifications-${stage}`;
    const grants = new DynamoProducerGrantStore(new DynamoTable(documentClient(), table));
    if (command === 'list') {
      const listed = await grants.listGrants();
      if (listed.length === 0) console.log(`no grants on stage ${stage}`);
      for (const { principal: who, prefixes } of listed) console.log(`${who}\t${prefixes.join(' ')}`);
      return 0;
    }
    const who = principal as string;
    if (stage === 'local' && !who.startsWith('local:')) {
      console.error(
        `note: on the local stage a producer named by X-Producer-Id: ${who} is the principal local:${who}`,
      );
    }
    if (command === 'add') {
      await grants.addGrant(who, prefix);
      console.log(`granted ${who} ${prefix} on stage ${stage}`);
      return 0;
    }
    if (await grants.removeGrant(who, prefix)) {
      console.log(
        `removed ${who}'s grant of ${prefix} on stage ${stage}: it registers no new publisher there; those it registered keep publishing until deleted (DELETE /publishers/{id})`,
      );
      return 0;
    }
    console.error(`${who} holds no grant of ${prefix} on stage ${stage}`);
    return 1;
  } catch (error) {
    console.error(`stage ${stage}: ${(error as Error).message}`);
    return 1;
  } finally {
    await stop();
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { stage: { type: 'string' }, region: { type: 'string' } },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
