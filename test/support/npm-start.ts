import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** `npm start` as a user runs it, with its data under a test's own directory. */
export interface NpmStart {
  /** The API's base URL, as printed. */
  url: string;
  /** The local queue's URL, as printed. */
  queueUrl: string;
  /** In a process group of its own, as in a terminal: signal `-process.pid` to reach its children. */
  process: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
  /** Ctrl-C, as in a terminal: SIGINT to its process group; resolves once it exited. */
  stop: () => Promise<void>;
}

/**
 * Starts scripts/start-local.ts on `port`, keeping DynamoDB Local's data and the queue in `dir`,
 * and resolves once it has printed its last ready line (the dashboard's).
 */
export async function startNpmStart(
  dir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<NpmStart> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], {
    cwd: PROJECT_DIR,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_DYNAMODB_DIR: join(dir, 'dynamodb'),
      LOCAL_QUEUE_FILE: join(dir, 'queue.db'),
      ...env,
    },
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  await vi.waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
      if (!output.includes('Local dashboard at')) throw new Error(`not ready yet:\n${output}`);
    },
    { timeout: 150_000, interval: 200 },
  );
  return {
    url: /API ready at (\S+)/.exec(output)?.[1] ?? '',
    queueUrl: /Local queue \(SQS protocol\) at (\S+?),/.exec(output)?.[1] ?? '',
    process: child,
    output: () => output,
    stop: async () => {
      if (!child.pid || child.exitCode !== null) return;
      const exited = once(child, 'exit');
      process.kill(-child.pid, 'SIGINT');
      await exited;
    },
  };
}
