/**
 * The agent's requests as a server sees them: a bearer token in `jwt` mode and a SigV4 signature
 * from the standard credential chain (here its environment credentials) in `iam` mode. A plain
 * HTTP server on 127.0.0.1 stands in for the service: only the headers are checked here; the
 * real-daemon tests (test/agent/daemons) run the agent against `npm start`. It names its release
 * in each request's User-Agent and in `--version`.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../agent/service';
import { version } from '../../package.json';
import { PROJECT_DIR } from '../../scripts/processes';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ SubscriptionId: 'p-1' }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

afterEach(() => {
  seen.length = 0;
});

describe('the agent names its release', () => {
  it('in the User-Agent of every request to the region', async () => {
    const client = new ServiceClient(base, { kind: 'none' });
    await client.request('POST', '/publishers', { ResourceAddress: '/c/s/n/sync' });
    await client.request('GET', '/publishers');
    expect(seen.map((request) => request.headers['user-agent'])).toEqual([
      `ocloud-node-agent/${version}`,
      `ocloud-node-agent/${version}`,
    ]);
  });

  it('in --version', () => {
    const answer = spawnSync(process.execPath, ['--import', 'tsx', 'agent/main.ts', '--version'], {
      cwd: PROJECT_DIR,
      encoding: 'utf8',
    });
    expect(answer.status, answer.stderr).toBe(0);
    expect(answer.stdout).toBe(`ocloud-node-agent ${version}\n`);
  });
});

describe('the agent authenticates as its stage requires', () => {
  it('sends the token file as a bearer token in jwt mode, re-read on each request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-token-'));
    try {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, 'first.token.value\n');
      const client = new ServiceClient(base, { kind: 'jwt', tokenFile });
      const answer = await client.request('POST', '/publishers', { ResourceAddress: '/c/s/n/sync' });
      expect(answer.status).toBe(201);
      writeFileSync(tokenFile, 'rotated.token.value');
      await client.request('POST', '/publishers', { ResourceAddress: '/c/s/n/sync' });
      expect(seen.map((request) => request.headers.authorization)).toEqual([
        'Bearer first.token.value',
        'Bearer rotated.token.value',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('signs with SigV4 from the environment credentials for execute-api in iam mode', async () => {
    const saved = { ...process.env };
    process.env.AWS_ACCESS_KEY_ID = 'AKIDAGENTTEST';
    process.env.AWS_SECRET_ACCESS_KEY = 'agent-test-secret';
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    try {
      const client = new ServiceClient(base, { kind: 'iam', region: 'eu-west-3' });
      const body = { ResourceAddress: '/c/s/n/sync/ptp-status/lock-state' };
      await client.request('POST', '/publishers', body);
      await client.request('GET', '/publishers?ResourceAddress=%2Fc%2Fs%2Fn');

      for (const request of seen) {
        const amzDate = String(request.headers['x-amz-date']);
        expect(amzDate).toMatch(/^\d{8}T\d{6}Z$/);
        const scope = `${amzDate.slice(0, 8)}/eu-west-3/execute-api/aws4_request`;
        const authorization = String(request.headers.authorization);
        expect(authorization).toMatch(
          new RegExp(
            `^AWS4-HMAC-SHA256 Credential=AKIDAGENTTEST/${scope}, SignedHeaders=[a-z0-9;-]*\\bhost\\b[a-z0-9;-]*, Signature=[0-9a-f]{64}$`,
          ),
        );
        // The signature is right for the request as it arrived (host, path, query, body): what
        // API Gateway checks. Re-signed here with the same key and time.
        const url = new URL(request.url, base);
        const query: Record<string, string> = {};
        for (const [name, value] of url.searchParams) query[name] = value;
        const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
        const headers: Record<string, string> = {};
        for (const name of signedHeaders) headers[name] = String(request.headers[name]);
        const expected = await new SignatureV4({
          service: 'execute-api',
          region: 'eu-west-3',
          credentials: { accessKeyId: 'AKIDAGENTTEST', secretAccessKey: 'agent-test-secret' },
          sha256: Sha256,
        }).sign(
          new HttpRequest({
            method: request.method,
            protocol: 'http:',
            hostname: url.hostname,
            port: Number(url.port),
            path: url.pathname,
            query,
            headers,
            body: request.body || undefined,
          }),
          {
            signingDate: new Date(
              amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
            ),
          },
        );
        expect(authorization).toBe(expected.headers.authorization);
      }
      expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
        'POST /api/ocloudNotifications/v2/publishers',
        'GET /api/ocloudNotifications/v2/publishers?ResourceAddress=%2Fc%2Fs%2Fn',
      ]);
      expect(JSON.parse(seen[0]?.body ?? '')).toEqual(body);
    } finally {
      process.env = saved;
    }
  });
});
