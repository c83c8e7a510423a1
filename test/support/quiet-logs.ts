/**
 * vitest setupFiles entry: the service's log and metric lines (Powertools' Logger writes info and
 * debug to stdout and warnings and errors to stderr, through a Console of its own, as in Lambda;
 * aws-embedded-metrics to stdout) are held while each test runs and printed only if it fails, so
 * that a passing run shows no error-looking lines while a failing test keeps the logs that explain
 * it. What is written outside a test (hooks of a whole file) passes through. The global console is
 * vitest's own business (`silent: 'passed-only'` in vitest.config.mts).
 */
import { afterEach, beforeEach } from 'vitest';

type Write = typeof process.stdout.write;
const streams = [process.stdout, process.stderr];
const writes = streams.map((stream) => stream.write.bind(stream) as Write);
let held: { stream: number; chunk: string | Uint8Array }[] | undefined;

streams.forEach((stream, index) => {
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (!held) return (writes[index] as Write)(chunk, ...(rest as []));
    held.push({ stream: index, chunk });
    const done = rest.find((arg): arg is () => void => typeof arg === 'function');
    done?.();
    return true;
  }) as Write;
});

beforeEach(({ onTestFailed }) => {
  const lines: { stream: number; chunk: string | Uint8Array }[] = [];
  held = lines;
  onTestFailed(() => {
    for (const { stream, chunk } of lines) (writes[stream] as Write)(chunk);
  });
});

afterEach(() => {
  held = undefined;
});
