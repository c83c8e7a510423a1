import type { ChildProcess } from 'node:child_process';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface StartOptions {
  /** TCP port on 127.0.0.1; 0 or undefined picks a free one. */
  port?: number;
  /** Directory for the data files (data survive restarts). */
  dbPath?: string;
  /** Keep everything in memory (the default when no dbPath is given). */
  inMemory?: boolean;
  /** Do not forward DynamoDB Local's own output. */
  quiet?: boolean;
}

export interface DynamoDbLocal {
  /** e.g. http://127.0.0.1:8000 */
  endpoint: string;
  port: number;
  /** SIGTERM, then SIGKILL after 3 s; resolves once it exited. */
  stop(): Promise<void>;
  process: ChildProcess;
}

export const JAVA_MISSING: string;
export function startDynamoDbLocal(options?: StartOptions): Promise<DynamoDbLocal>;
export function ensureTable(options: { endpoint: string; tableName: string }): Promise<void>;
export function freePort(): Promise<number>;
export function assertPortFree(port: number): Promise<void>;
/** A client for DynamoDB Local: region us-east-1, dummy credentials, no retries. */
export function dynamoClient(endpoint: string): DynamoDBClient;
export function checkJava(): void;
export function killOnExit(child: ChildProcess, group?: boolean): void;
export function stopChild(child: ChildProcess, group?: boolean): Promise<void>;
