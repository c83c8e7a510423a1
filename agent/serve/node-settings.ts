/**
 * What the node host serves with: read before lib/services.ts is loaded (agent/main.ts), since it
 * reads the settings every function shares as it loads.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const signingKeyFile = (stateDir: string) => join(stateDir, 'signing-key');

/**
 * The settings the node serves with, beside the process's own (the time-outs, the retry window,
 * LOG_LEVEL): owners named as on the local stage (`X-Consumer-Id`), endpoints on private
 * networks allowed (a node's consumers are on it or on its pod network), and the keys of its
 * signing secrets and list cursors in its state directory, made at the first start.
 */
export function nodeSettings(stateDir: string, env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return {
    ...env,
    STAGE: 'local',
    TABLE_NAME: 'node-disk',
    SERVICE_NAME: 'ocloud-node-agent',
    CONSUMER_AUTH: 'none',
    SIGNING_KEY_SOURCE: 'file',
    SIGNING_KEY_FILE: signingKeyFile(stateDir),
    CURSOR_SECRET: keptSecret(join(stateDir, 'cursor-secret')),
    ENDPOINT_TLS_SECRET: undefined,
  };
}

/** A random secret made once and kept in a file only its owner reads. */
function keptSecret(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    const secret = randomBytes(32).toString('hex');
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
