/**
 * `npm run smoke -- <base-url> [--endpoint <url>] [--listen <port>]`: proves a stage works end to
 * end. Registers a publisher under a fresh address, publishes, reads the current state back; with
 * --endpoint, subscribes that URL, receives the initial notification and a published one on this
 * script's own listener (--listen, by default the endpoint's port: the endpoint must reach it) and
 * verifies their Standard Webhooks signatures; without it, checks the consumer routes only. Cleans
 * up what it created, and exits 1 at the first step that fails.
 *
 * Requests to a loopback host go unsigned (npm start). Otherwise they are signed with SigV4 for
 * AWS_REGION (or the region in an execute-api host name) from the standard credential chain; with
 * OCLOUD_TOKEN set, the consumer routes send it as a bearer token instead (a consumerAuth=jwt stage).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { requestSigner } from '../agent/sign-request';
import { BASE_PATH } from '../lib/http/base-path';

const USAGE = 'usage: npm run smoke -- <base-url> [--endpoint <url>] [--listen <port>]';

/** Runs the smoke test; resolves to the exit code. */
export async function smoke(
  args: string[],
  print: (line: string) => void = (line) => console.log(line),
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { endpoint: { type: 'string' }, listen: { type: 'string' } },
  });
  const [base] = positionals;
  if (!base || positionals.length > 1) {
    print(USAGE);
    return 2;
  }
  const api = base.replace(/\/+$/, '').replace(new RegExp(`${BASE_PATH}$`), '') + BASE_PATH;
  const region =
    process.env.AWS_REGION ?? /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(api).hostname)?.[1];
  const client = clientFor(api, region);
  if (!client) {
    print('Set AWS_REGION: requests to a deployed stage are signed for its region.');
    return 2;
  }
  const address = `/smoke-${randomUUID().slice(0, 8)}/site-1/node-1/sync/ptp-status/lock-state`;
  const cleanup: Array<() => Promise<unknown>> = [];
  const step = async (name: string, run: () => Promise<string | undefined>) => {
    let note: string | undefined;
    try {
      note = await run();
    } catch (error) {
      throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    print(`ok    ${name}${note ? ` (${note})` : ''}`);
  };

  try {
    await step(`GET ${api}/health`, async () => {
      const { status, text } = await client.call('GET', '/health', { kind: 'open' });
      expect(status === 200 && text === 'OK', `expected 200 OK, got ${status} ${text}`);
      return client.describe();
    });

    let publisherId: string = '';
    await step(`register a publisher at ${address}`, async () => {
      const { status, json } = await client.call(
        'POST',
        '/publishers',
        { kind: 'producer' },
        { ResourceAddress: address },
      );
      expect(status === 201, `expected 201, got ${status} ${JSON.stringify(json)}`);
      publisherId = String(json.SubscriptionId);
      cleanup.push(() => client.call('DELETE', `/publishers/${publisherId}`, { kind: 'producer' }));
      return undefined;
    });

    const first = lockState(address, 'LOCKED');
    await step('publish LOCKED', async () => {
      const { status, json } = await client.call(
        'POST',
        `/publishers/${publisherId}/events`,
        { kind: 'producer' },
        first,
      );
      expect(status === 202, `expected 202, got ${status} ${JSON.stringify(json)}`);
      return undefined;
    });

    await step('read the current state back', async () => {
      const { status, json } = await client.call('GET', `${address}/CurrentState`, { kind: 'consumer' });
      expect(
        status === 200 && json.id === first.id,
        `expected 200 with event ${first.id}, got ${status} ${JSON.stringify(json)}`,
      );
      return undefined;
    });

    if (values.endpoint) {
      await subscribeAndReceive(client, {
        address,
        publisherId,
        endpoint: values.endpoint,
        listen: values.listen,
        step,
        cleanup,
        first,
      });
    } else {
      await step(
        'consumer routes: list, read, refuse a bad subscription (no --endpoint: nothing subscribed)',
        async () => {
          const list = await client.call('GET', '/subscriptions?limit=1', { kind: 'consumer' });
          expect(
            list.status === 200 && Array.isArray(list.json),
            `GET /subscriptions: expected 200 and an array, got ${list.status}`,
          );
          const missing = await client.call('GET', `/subscriptions/${randomUUID()}`, { kind: 'consumer' });
          expect(
            missing.status === 404,
            `GET /subscriptions/<unknown id>: expected 404, got ${missing.status}`,
          );
          const bad = await client.call(
            'POST',
            '/subscriptions',
            { kind: 'consumer' },
            { ResourceAddress: address },
          );
          expect(
            bad.status === 400 && typeof bad.json.detail === 'string',
            `POST /subscriptions without EndpointUri: expected a 400 problem, got ${bad.status}`,
          );
          const publishers = await client.call(
            'GET',
            `/publishers?ResourceAddress=${encodeURIComponent(address)}`,
            { kind: 'consumer' },
          );
          expect(
            publishers.status === 200 && JSON.stringify(publishers.json).includes(publisherId),
            `GET /publishers?ResourceAddress: expected the publisher, got ${publishers.status}`,
          );
          return undefined;
        },
      );
    }
  } catch (error) {
    print(`FAIL  ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    for (const undo of cleanup.reverse()) await undo().catch(() => undefined);
  }
  print('Smoke test passed; what it created is gone.');
  return 0;
}

async function subscribeAndReceive(
  client: NonNullable<ReturnType<typeof clientFor>>,
  {
    address,
    publisherId,
    endpoint,
    listen,
    step,
    cleanup,
    first,
  }: {
    address: string;
    publisherId: string;
    endpoint: string;
    listen: string | undefined;
    step: (name: string, run: () => Promise<string | undefined>) => Promise<void>;
    cleanup: Array<() => Promise<unknown>>;
    first: ReturnType<typeof lockState>;
  },
) {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const webhook = new Webhook(secret);
  const port = Number(listen ?? (new URL(endpoint).port || 80));
  const received: Array<{ event?: { id?: unknown }; failure?: string }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      try {
        received.push({
          event: webhook.verify(raw, req.headers as Record<string, string>) as { id?: unknown },
        });
        res.writeHead(204).end();
      } catch (error) {
        received.push({ failure: error instanceof Error ? error.message : String(error) });
        res.writeHead(401).end();
      }
    });
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, () => resolve(undefined)));
  cleanup.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const arrival = async (id: string, what: string) => {
    for (let waited = 0; waited < 10_000; waited += 100) {
      const failure = received.find((r) => r.failure);
      expect(!failure, `${what}: a request failed signature verification (${failure?.failure})`);
      if (received.some((r) => r.event?.id === id)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${what}: nothing arrived on port ${port} within 10 s`);
  };

  let subscriptionId = '';
  await step(
    `subscribe ${endpoint} (its initial notification arrives here, signature verified)`,
    async () => {
      const { status, json } = await client.call(
        'POST',
        '/subscriptions',
        { kind: 'consumer' },
        {
          ResourceAddress: address,
          EndpointUri: endpoint,
          SigningSecret: secret,
        },
      );
      expect(status === 201, `expected 201, got ${status} ${JSON.stringify(json)}`);
      subscriptionId = String(json.SubscriptionId);
      cleanup.push(() => client.call('DELETE', `/subscriptions/${subscriptionId}`, { kind: 'consumer' }));
      await arrival(first.id, 'the initial notification');
      return undefined;
    },
  );

  const second = lockState(address, 'HOLDOVER');
  await step('publish HOLDOVER: delivered, signature verified', async () => {
    const started = Date.now();
    const { status } = await client.call(
      'POST',
      `/publishers/${publisherId}/events`,
      { kind: 'producer' },
      second,
    );
    expect(status === 202, `expected 202, got ${status}`);
    await arrival(second.id, 'the notification');
    return `${Date.now() - started} ms from the POST`;
  });

  await step('read and delete the subscription', async () => {
    const read = await client.call('GET', `/subscriptions/${subscriptionId}`, { kind: 'consumer' });
    expect(read.status === 200, `GET: expected 200, got ${read.status}`);
    const deleted = await client.call('DELETE', `/subscriptions/${subscriptionId}`, { kind: 'consumer' });
    expect(deleted.status === 204, `DELETE: expected 204, got ${deleted.status}`);
    return undefined;
  });
}

/**
 * How to call the stage: unsigned on a loopback host, SigV4 (and a bearer token for the consumer
 * routes with OCLOUD_TOKEN) elsewhere; undefined when a deployed stage's region is unknown.
 */
function clientFor(api: string, region: string | undefined) {
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(api).hostname);
  const token = process.env.OCLOUD_TOKEN;
  if (!local && !region) return undefined;
  const signer = local ? undefined : requestSigner({ region: String(region) });
  return {
    describe: () =>
      local
        ? 'loopback: unsigned'
        : `signed with SigV4 for ${region}${token ? '; consumer routes with OCLOUD_TOKEN' : ''}`,
    async call(
      method: string,
      path: string,
      { kind }: { kind: 'open' | 'producer' | 'consumer' },
      body?: unknown,
    ) {
      const url = `${api}${path}`;
      const text = body === undefined ? undefined : JSON.stringify(body);
      let headers: Record<string, string> = text === undefined ? {} : { 'content-type': 'application/json' };
      if (!local && kind === 'consumer' && token) headers.authorization = `Bearer ${token}`;
      else if (signer && kind !== 'open') {
        const { host: _host, ...signed } = await signer({
          method,
          url,
          headers,
          ...(text === undefined ? {} : { body: text }),
        });
        headers = signed;
      }
      const response = await fetch(url, { method, headers, body: text, signal: AbortSignal.timeout(15_000) });
      const answer = await response.text();
      let json = {};
      try {
        json = answer ? JSON.parse(answer) : {};
      } catch {
        // not JSON: /health's text
      }
      return { status: response.status, text: answer, json: json as Record<string, unknown> };
    },
  };
}

function lockState(address: string, value: string) {
  return {
    id: randomUUID(),
    specversion: '1.0',
    source: '/sync/ptp-status/lock-state',
    type: 'event.sync.ptp-status.ptp-state-change',
    time: new Date().toISOString(),
    data: {
      version: '1.0',
      values: [{ data_type: 'notification', ResourceAddress: address, value_type: 'enumeration', value }],
    },
  };
}

function expect(condition: boolean, message: string) {
  if (!condition) throw new Error(message);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await smoke(process.argv.slice(2));
}
