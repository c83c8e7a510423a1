import type { ChildProcess } from 'node:child_process';
import type { LocalQueue } from './local-queue.mjs';

export interface OfflineOptions {
  /** HTTP port on 127.0.0.1; 0 or undefined picks a free one. */
  port?: number;
  /** e.g. http://127.0.0.1:8000 (becomes AWS_ENDPOINT_URL_DYNAMODB) */
  dynamoEndpoint: string;
  /** Extra environment, applied last (AWS_* variables reach the handlers). */
  env?: Record<string, string>;
  /** Default "local". */
  stage?: string;
  /** Do not forward serverless' output (it is still captured for errors). */
  quiet?: boolean;
  /** Readiness time-out, default 60 000. */
  timeoutMs?: number;
  /** Start the local queue and its poller (default true): delivery then runs through fanOut and deliver. */
  localQueue?: boolean;
  /** The local queue's SQLite file (default: a temporary one, removed on stop). */
  queuePath?: string;
  /** Called for every message put on the dead-letter queue. */
  onDeadLetter?: (message: { body: string; deadLetterSourceQueue: string | undefined }) => void;
}

export interface Offline {
  /** API root, e.g. http://127.0.0.1:3000/api/ocloudNotifications/v2 */
  url: string;
  port: number;
  /** Kills the whole process group; resolves once it exited. */
  stop(): Promise<void>;
  process: ChildProcess;
  /** The last 50 000 characters it printed. */
  output(): string;
  /** serverless offline's Lambda invoke endpoint. */
  lambdaPort: number;
  /** The local queue, when started. */
  queue: LocalQueue | undefined;
}

export const API_PATH: string;
export function startOffline(options: OfflineOptions): Promise<Offline>;
