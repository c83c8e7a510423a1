/** Structured JSON logs, one line each, with the request id of the invocation that wrote them. */
import { type LogLevel, logLevel } from './config';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const threshold = ORDER[logLevel()];

let context: Record<string, unknown> = {};

export const logger = {
  /** Replaces the per-invocation keys (request id, route) that every following line carries. */
  setContext(keys: Record<string, unknown>): void {
    context = keys;
  },
  debug: (message: string, extra?: Record<string, unknown>) => write('debug', message, extra),
  info: (message: string, extra?: Record<string, unknown>) => write('info', message, extra),
  warn: (message: string, extra?: Record<string, unknown>) => write('warn', message, extra),
  error: (message: string, extra?: Record<string, unknown>) => write('error', message, extra),
};

/**
 * Straight to stdout, as Powertools and aws-embedded-metrics write: Lambda's console prefixes each
 * line with a timestamp, request id and level (or wraps it in JSON of its own), which would make
 * the line no longer one JSON object.
 */
function write(level: LogLevel, message: string, extra?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = { timestamp: new Date().toISOString(), level, message, ...context, ...extra };
  const text = JSON.stringify(line, (_, value) => (value instanceof Error ? serialiseError(value) : value));
  process.stdout.write(`${text}\n`);
}

function serialiseError(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message, stack: error.stack, cause: error.cause };
}
