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
import assert from 'node:assert';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildEvent, resourceAddress } from '../agent/events';
import { requestSigner } from '../agent/sign-request';
import { newSigningSecret } from '../lib/domain/signing-secret';
import { BASE_PATH } from '../lib/http/base-path';
import { webhookReceiver } from './consumer';
import { until } from './processes';

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
  const { call } = client;
  const node = `/smoke-${randomUUID().slice(0, 8)}/site-1/node-1`;
  const address = resourceAddress(node, 'lockState');
  const lockState = (value: string) => buildEvent(node, 'lockState', { value }, new Date().toISOString());
  const cleanup: Array<() => Promise<unknown>> = [];
  /** Runs one step; a string it answers is printed after its name. */
  const step = async (name: string, run: () => Promise<unknown>) => {
    let note: unknown;
    try {
      note = await run();
    } catch (error) {
      throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    print(`ok    ${name}${typeof note === 'string' ? ` (${note})` : ''}`);
  };

  try {
    await step(`GET ${api}/health`, async () => {
      const { text } = await call('open', 'GET', '/health', 200);
      assert(text === 'OK', `expected OK, got ${text}`);
      return client.description;
    });

    let publisherId = '';
    await step(`register a publisher at ${address}`, async () => {
      const { json } = await call('producer', 'POST', '/publishers', 201, { ResourceAddress: address });
      publisherId = String(json.SubscriptionId);
      cleanup.push(() => call('producer', 'DELETE', `/publishers/${publisherId}`, 204));
    });

    const publish = (event: unknown) =>
      call('producer', 'POST', `/publishers/${publisherId}/events`, 202, event);
    const first = lockState('LOCKED');
    await step('publish LOCKED', () => publish(first));

    await step('read the current state back', async () => {
      const { json } = await call('consumer', 'GET', `${address}/CurrentState`, 200);
      assert(json.id === first.id, `expected event ${first.id}, got ${JSON.stringify(json)}`);
    });

    if (!values.endpoint) {
      await step(
        'consumer routes: list, read, refuse a bad subscription (no --endpoint: nothing subscribed)',
        async () => {
          const list = await call('consumer', 'GET', '/subscriptions?limit=1', 200);
          assert(Array.isArray(list.json), 'GET /subscriptions: expected an array');
          await call('consumer', 'GET', `/subscriptions/${randomUUID()}`, 404);
          const bad = await call('consumer', 'POST', '/subscriptions', 400, { ResourceAddress: address });
          assert(typeof bad.json.detail === 'string', 'POST /subscriptions: expected a problem document');
          const found = `/publishers?ResourceAddress=${encodeURIComponent(address)}`;
          const publishers = await call('consumer', 'GET', found, 200);
          assert(publishers.text.includes(publisherId), `GET ${found}: expected the publisher`);
        },
      );
    } else {
      const endpoint = values.endpoint;
      const secret = newSigningSecret();
      const port = Number(values.listen ?? (new URL(endpoint).port || 80));
      const received: Array<{ id?: unknown; failure?: string }> = [];
      const server = http.createServer(
        webhookReceiver(
          secret,
          (event) => received.push({ id: event.id }),
          (failure) => received.push({ failure }),
        ),
      );
      await once(server.listen(port), 'listening');
      cleanup.push(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      });
      const arrival = (id: string, what: string) =>
        until(
          () => {
            const failure = received.find((r) => r.failure);
            assert(!failure, `${what}: a request failed signature verification (${failure?.failure})`);
            return received.some((r) => r.id === id) || undefined;
          },
          `${what} to arrive on port ${port}`,
          10_000,
          100,
        );

      let subscriptionId = '';
      await step(
        `subscribe ${endpoint} (its initial notification arrives here, signature verified)`,
        async () => {
          const subscription = { ResourceAddress: address, EndpointUri: endpoint, SigningSecret: secret };
          const { json } = await call('consumer', 'POST', '/subscriptions', 201, subscription);
          subscriptionId = String(json.SubscriptionId);
          cleanup.push(() => call('consumer', 'DELETE', `/subscriptions/${subscriptionId}`, 204));
          await arrival(first.id, 'the initial notification');
        },
      );

      await step('publish HOLDOVER: delivered, signature verified', async () => {
        const started = Date.now();
        const second = lockState('HOLDOVER');
        await publish(second);
        await arrival(second.id, 'the notification');
        return `${Date.now() - started} ms from the POST`;
      });

      await step('read and delete the subscription', async () => {
        await call('consumer', 'GET', `/subscriptions/${subscriptionId}`, 200);
        await call('consumer', 'DELETE', `/subscriptions/${subscriptionId}`, 204);
      });
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

/**
 * How to call the stage: unsigned on a loopback host, SigV4 (and a bearer token for the consumer
 * routes with OCLOUD_TOKEN) elsewhere; undefined when a deployed stage's region is unknown. A call
 * answering another status than `expected` throws, saying what it got.
 */
function clientFor(api: string, region: string | undefined) {
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(api).hostname);
  const token = process.env.OCLOUD_TOKEN;
  if (!local && !region) return undefined;
  const signer = local ? undefined : requestSigner({ region: String(region) });
  const description = local
    ? 'loopback: unsigned'
    : `signed with SigV4 for ${region}${token ? '; consumer routes with OCLOUD_TOKEN' : ''}`;
  const call = async (
    kind: 'open' | 'producer' | 'consumer',
    method: string,
    path: string,
    expected: number,
    body?: unknown,
  ) => {
    const url = `${api}${path}`;
    const text = body === undefined ? undefined : JSON.stringify(body);
    let headers: Record<string, string> = text === undefined ? {} : { 'content-type': 'application/json' };
    if (!local && kind === 'consumer' && token) headers.authorization = `Bearer ${token}`;
    else if (signer && kind !== 'open') {
      const { host: _host, ...signed } = await signer({ method, url, headers, body: text });
      headers = signed;
    }
    const response = await fetch(url, { method, headers, body: text, signal: AbortSignal.timeout(15_000) });
    const answer = await response.text();
    assert(
      response.status === expected,
      `${method} ${path}: expected ${expected}, got ${response.status} ${answer}`,
    );
    const json: Record<string, unknown> = response.headers.get('content-type')?.includes('json')
      ? JSON.parse(answer)
      : {};
    return { text: answer, json };
  };
  return { description, call };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await smoke(process.argv.slice(2));
}
