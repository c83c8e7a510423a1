/**
 * The child processes of the launchers and of the agent lab (DynamoDB Local, serverless offline,
 * `npm start`, the daemons), each in a process group of its own: a Ctrl-C in the terminal reaches
 * only the launcher, which stops them in its own order, and a stop reaches all they started
 * (esbuild, the Lambda workers). Whatever still runs when this process exits, or dies of a signal
 * nobody else handles, is sent SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The checkout, where the children run. */
export const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));

export type Child = ReturnType<typeof adoptChild>;

/** Starts `command` in the checkout in a process group of its own, stdin closed, its output kept. */
export function startChild(
  command: string,
  args: string[],
  { env, ...options }: { env?: NodeJS.ProcessEnv } & Parameters<typeof adoptChild>[1] = {},
) {
  return adoptChild(
    spawn(command, args, { cwd: PROJECT_DIR, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
    options,
  );
}

/**
 * Keeps the last `keep` characters `child` (spawned `detached`, stdout and stderr piped) prints,
 * forwards them unless `quiet`, and stops it when this process exits.
 */
export function adoptChild(child: ChildProcess, { keep = 50_000, quiet = true } = {}) {
  stopOnExit(child);
  let output = '';
  for (const [stream, forwardTo] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Trimmed now and then rather than on every chunk: an agent in debug prints many.
      if (output.length > 2 * keep) output = output.slice(-keep);
    });
    if (!quiet) stream?.pipe(forwardTo, { end: false });
  }
  const exited = once(child, 'exit');
  return {
    process: child,
    output: () => output.slice(-keep),
    /** `signal` to its process group, SIGKILL 5 s later; resolves once it exited. */
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (hasExited(child)) return;
      signalGroup(child, signal);
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function hasExited(child: ChildProcess) {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Waits until `ready` answers true; stops the child and throws, with what it printed, when it
 * exits first or `timeoutMs` passes.
 */
export async function whenReady(
  child: Child,
  what: string,
  ready: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
) {
  try {
    await until(
      async () => {
        const { exitCode, signalCode } = child.process;
        if (hasExited(child.process))
          throw new Error(
            `${what} exited (${exitCode ?? signalCode}) before it was ready:\n${child.output()}`,
          );
        return (await ready()) || undefined;
      },
      () => `${what} to be ready; it said:\n${child.output()}`,
      timeoutMs,
      everyMs,
    );
  } catch (error) {
    await child.stop();
    throw error;
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-(child.pid ?? 0), signal);
  } catch {
    // already gone
  }
}

const running = new Set<ChildProcess>();
let hooked = false;

function stopOnExit(child: ChildProcess) {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (hooked) return;
  hooked = true;
  const stopAll = () => {
    for (const each of running) signalGroup(each, 'SIGTERM');
  };
  process.once('exit', stopAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // Someone else handles this signal (and decides when to exit): the exit hook suffices.
      if (process.listenerCount(signal) > 1) return;
      process.removeListener(signal, onSignal);
      stopAll();
      process.kill(process.pid, signal); // die of the same signal, as without this hook
    };
    process.on(signal, onSignal);
  }
}

/**
 * Polls `check` until it returns a value other than undefined. `what` is what is awaited; a
 * function is called at the time-out, so the message shows the state then (the processes'
 * output), not when the wait began.
 */
export async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string | (() => string),
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`,
      );
    await sleep(everyMs);
  }
}
