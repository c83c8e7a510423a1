/**
 * What a killed `npm start` leaves behind. Its DynamoDB Local and serverless offline run in
 * process groups of their own (so that Ctrl-C reaches them in order); when the launcher itself is
 * killed with SIGKILL nothing stops them, and they keep the ports and the data. The launcher
 * records their process groups in a file beside the data; the next start stops whatever of them
 * still runs this project's code, and says so.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_DIR } from './processes';

/** The file's content: the launcher's pid and its children's process groups. */
type Launch = { launcher: number; children: Array<{ pid: number; what: string }> };

const leftoversFile = (dataDir: string) => join(dataDir, 'npm-start.pids.json');

/** Names this checkout on its command line, or runs in it (DynamoDB Local in its package's folder). */
function runsThisProject(pid: number) {
  try {
    process.kill(pid, 0);
    return (
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(PROJECT_DIR) ||
      `${readlinkSync(`/proc/${pid}/cwd`)}/`.startsWith(PROJECT_DIR)
    );
  } catch {
    return false;
  }
}

/** Exited, its files (and so its ports) closed: no such process, or a zombie not reaped yet. */
function gone(pid: number) {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true;
  }
}

/**
 * Stops the process groups a previous launcher recorded, if it is gone and they still run this
 * project's code; refuses to start beside a launcher that still runs on the same data. Returns
 * what was stopped, e.g. "DynamoDB Local (pid 1234)".
 */
export async function stopLeftovers(dataDir: string): Promise<string[]> {
  let recorded: Launch;
  try {
    recorded = JSON.parse(readFileSync(leftoversFile(dataDir), 'utf8'));
  } catch {
    return [];
  }
  if (recorded.launcher !== process.pid && runsThisProject(recorded.launcher)) {
    throw new Error(
      `npm start is already running on this data (pid ${recorded.launcher}); stop it first (Ctrl-C in its terminal, or kill ${recorded.launcher}).`,
    );
  }
  const alive = recorded.children.filter(({ pid }) => runsThisProject(pid));
  for (const { pid } of alive) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
  }
  const deadline = Date.now() + 5000;
  while (alive.some(({ pid }) => !gone(pid)) && Date.now() < deadline) await sleep(50);
  await rm(leftoversFile(dataDir), { force: true });
  return alive.map(({ pid, what }) => `${what} (pid ${pid})`);
}

/**
 * Keeps the file up to date with the process groups this launcher runs (`record` again when one is
 * started anew); `forget` removes it on a clean stop.
 */
export function recordLaunch(dataDir: string) {
  const children = new Map<string, number>();
  return {
    record(what: string, pid: number | undefined) {
      if (!pid) return;
      children.set(what, pid);
      const launch: Launch = {
        launcher: process.pid,
        children: [...children].map(([what, pid]) => ({ what, pid })),
      };
      writeFile(leftoversFile(dataDir), JSON.stringify(launch)).catch(() => undefined);
    },
    forget: () => rm(leftoversFile(dataDir), { force: true }),
  };
}
