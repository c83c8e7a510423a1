// @ts-check
/**
 * The baseline of part 4: a minimal HTTP server that makes the same DynamoDB read as the route
 * (GetItem SUB#<id> or the state of the publisher at <address>, consistent) with the same SDK and
 * answers JSON.
 * Usage: node bench/bare-server.mjs (env: DYNAMO_ENDPOINT, TABLE_NAME); prints `@@port <n>`.
 */
import http from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { API_PATH } from '../scripts/offline.mjs';
import { keys, listenLocal, publisherIdFor } from './common.mjs';

const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: process.env.DYNAMO_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }),
);
const TableName = process.env.TABLE_NAME;

const server = http.createServer(async (req, res) => {
  const path = decodeURI((req.url ?? '').split('?')[0] ?? '').slice(API_PATH.length);
  const key = path.startsWith('/subscriptions/')
    ? keys.subscription(path.slice('/subscriptions/'.length))
    : path.endsWith('/CurrentState')
      ? keys.publisherState(publisherIdFor(path.slice(0, -'/CurrentState'.length)))
      : undefined;
  if (!key) {
    res.writeHead(404).end();
    return;
  }
  try {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
    res.writeHead(Item ? 200 : 404, { 'Content-Type': 'application/json' }).end(JSON.stringify(Item ?? {}));
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => process.exit(0));
const { port } = await listenLocal(server);
process.stdout.write(`@@port ${port}\n`);
