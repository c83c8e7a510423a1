/** Structured JSON logs, one line each, with the request id of the invocation that wrote them. */
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const threshold = ORDER[(process.env.LOG_LEVEL?.toLowerCase() as Level) ?? 'info'] ?? ORDER.info;

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

function write(level: Level, message: string, extra?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = { timestamp: new Date().toISOString(), level, message, ...context, ...extra };
  const text = JSON.stringify(line, (_, value) => (value instanceof Error ? serialiseError(value) : value));
  if (level === 'error' || level === 'warn') console.error(text);
  else console.log(text);
}

function serialiseError(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message, stack: error.stack, cause: error.cause };
}
