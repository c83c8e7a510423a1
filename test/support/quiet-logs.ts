/**
 * vitest setupFiles entry: the service's log and metric lines (lib/logger.ts writes to stdout
 * directly, as in Lambda) are held while each test runs and printed only if it fails, so that a
 * passing run shows no error-looking lines while a failing test keeps the logs that explain it.
 * What is written outside a test (hooks of a whole file) passes through. Console output is
 * vitest's own business (`silent: 'passed-only'` in vitest.config.mts).
 */
import { afterEach, beforeEach } from 'vitest';

const write = process.stdout.write.bind(process.stdout);
let held: (string | Uint8Array)[] | undefined;

process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  if (!held) return write(chunk, ...(rest as []));
  held.push(chunk);
  const done = rest.find((arg): arg is () => void => typeof arg === 'function');
  done?.();
  return true;
}) as typeof process.stdout.write;

beforeEach(({ onTestFailed }) => {
  const lines: (string | Uint8Array)[] = [];
  held = lines;
  onTestFailed(() => {
    for (const line of lines) write(line);
  });
});

afterEach(() => {
  held = undefined;
});
