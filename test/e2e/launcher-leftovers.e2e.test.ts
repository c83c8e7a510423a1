/**
 * `npm start` killed with SIGKILL leaves DynamoDB Local and serverless offline running, holding
 * their ports; the next `npm start` stops them, says so, and starts; one started beside a running
 * one on the same data refuses, naming it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/dynamodb-local';

const launchers: ChildProcess[] = [];
const dirs: string[] = [];

function launch(port: number, dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_DYNAMODB_DIR: dataDir,
      LOCAL_QUEUE_FILE: join(dataDir, 'queue.db'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launchers.push(child);
  const state = { output: '', exited: false };
  child.stdout?.on('data', (chunk) => {
    state.output += chunk.toString();
  });
  child.stderr?.on('data', (chunk) => {
    state.output += chunk.toString();
  });
  child.once('exit', () => {
    state.exited = true;
  });
  const ready = () =>
    vi.waitFor(
      () => {
        if (!state.output.includes('ready at')) throw new Error(`not ready:\n${state.output}`);
      },
      { timeout: 150_000, interval: 200 },
    );
  return { child, state, ready };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  for (const child of launchers) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('npm start after a SIGKILL of the previous one', () => {
  it('stops what it left running and starts; refuses to start beside a live one', {
    timeout: 420_000,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'ocloud-leftovers-'));
    dirs.push(dataDir);
    const port = await freePort();
    const first = launch(port, dataDir);
    await first.ready();
    const dynamoPid = Number(/\(pid (\d+)\)/.exec(first.state.output)?.[1]);
    expect(alive(dynamoPid)).toBe(true);

    // Beside a live one on the same data: refused, naming it.
    const beside = launch(await freePort(), dataDir);
    await vi.waitFor(() => expect(beside.state.exited).toBe(true), { timeout: 60_000 });
    expect(beside.state.output).toContain(
      `npm start is already running on this data (pid ${first.child.pid})`,
    );
    expect(alive(dynamoPid)).toBe(true);

    first.child.kill('SIGKILL');
    await vi.waitFor(() => expect(first.state.exited).toBe(true));
    expect(alive(dynamoPid), 'DynamoDB Local outlives a SIGKILL of its launcher').toBe(true);

    const second = launch(port, dataDir);
    await second.ready();
    expect(second.state.output).toMatch(
      /Stopped what a previous npm start left running: DynamoDB Local \(pid \d+\), serverless offline \(pid \d+\)/,
    );
    expect(alive(dynamoPid)).toBe(false);
    const health = await fetch(`http://127.0.0.1:${port}/api/ocloudNotifications/v2/health`);
    expect(health.status).toBe(200);
  });
});
