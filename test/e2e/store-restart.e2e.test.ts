/**
 * `npm start` keeps serving when its store dies: DynamoDB Local is killed (SIGKILL) under a steady
 * load; meanwhile every answer is a 2xx, a 4xx or a 503 problem document with Retry-After, and once
 * npm start has started it again on the same data everything works, with nothing else restarted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';
import { uniqueCluster } from '../support/fixtures';

let launcher: ChildProcess;
let output = '';
let base = '';
let dataDir = '';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ocloud-store-restart-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}/api/ocloudNotifications/v2`;
  launcher = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_DYNAMODB_DIR: dataDir,
      LOCAL_QUEUE_FILE: join(dataDir, 'queue.db'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  launcher.stdout?.on('data', (chunk) => {
    output += chunk.toString();
  });
  launcher.stderr?.on('data', (chunk) => {
    output += chunk.toString();
  });
  await vi.waitFor(
    () => {
      if (!output.includes('ready at')) throw new Error(`not ready yet:\n${output}`);
    },
    { timeout: 150_000, interval: 200 },
  );
}, 180_000);

afterAll(async () => {
  if (launcher?.pid && launcher.exitCode === null) {
    const exited = new Promise((resolve) => launcher.once('exit', resolve));
    launcher.kill('SIGINT');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  retryAfter: string | null;
  type: string | null;
}

async function send(method: string, path: string, body?: unknown): Promise<Answer & { json: unknown }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // text/plain (health)
  }
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    type: response.headers.get('content-type'),
    json,
  };
}

describe('DynamoDB Local killed under load', () => {
  it('answers only 2xx, 4xx and 503 with Retry-After meanwhile, and recovers on the same data', {
    timeout: 240_000,
  }, async () => {
    const node = `/${uniqueCluster()}/site-1/node-1`;
    const before = await send('POST', '/publishers', {
      ResourceAddress: `${node}/sync/ptp-status/lock-state`,
    });
    expect(before.status).toBe(201);
    const publisherId = (before.json as { SubscriptionId: string }).SubscriptionId;

    const answers: Answer[] = [];
    let loading = true;
    const load = (async () => {
      for (let i = 0; loading; i++) {
        const round = await Promise.all([
          send('GET', '/health'),
          send('GET', `/publishers/${publisherId}`),
          send('POST', '/publishers', { ResourceAddress: `${node}/sync/ptp-status/clock-class-${i}` }),
          send('GET', '/subscriptions'),
        ]);
        answers.push(...round);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    await vi.waitFor(() => expect(answers.length).toBeGreaterThan(20), { timeout: 20_000 });
    const pid = Number(/DynamoDB Local at \S+ \(pid (\d+)\)/.exec(output)?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(
      () => {
        if (!output.includes('DynamoDB Local is back')) throw new Error('not back yet');
      },
      { timeout: 60_000, interval: 100 },
    );
    const afterBack = answers.length;
    await vi.waitFor(() => expect(answers.length).toBeGreaterThan(afterBack + 40), { timeout: 30_000 });
    loading = false;
    await load;

    const statuses = new Set(answers.map((a) => a.status));
    expect(
      [...statuses].every((s) => (s >= 200 && s < 500) || s === 503),
      [...statuses].join(', '),
    ).toBe(true);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.length, 'some requests met the store while it was down').toBeGreaterThan(0);
    for (const a of unavailable) {
      expect(a.retryAfter).toMatch(/^\d+$/);
      expect(a.type).toMatch(/^application\/problem\+json/);
    }
    // Back, on the same data, with nothing else restarted: the last round is all answered.
    expect(answers.slice(-4).map((a) => a.status)).toEqual([200, 200, 201, 200]);
    expect((await send('GET', `/publishers/${publisherId}`)).status).toBe(200);
    expect(output).toContain('DynamoDB Local exited (SIGKILL); starting it again');
  });
});
