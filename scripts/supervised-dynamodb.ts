/**
 * DynamoDB Local under `npm start`, started again when it dies. It comes back on the same port and
 * the same data, so the handlers, whose endpoint does not change, simply reconnect: while it is
 * down their calls are refused and every route answers 503 with Retry-After (GET /health too).
 */
import { type Backoff, backoffStepMs } from '../lib/backoff';
import { startDynamoDbLocal } from './dynamodb-local';

/** Restarts 1 s, 2 s, 4 s … at most 30 s apart, without jitter: one process, nobody to spread from. */
const RESTART: Backoff = { baseMs: 1000, maxMs: 30_000 };

export async function superviseDynamoDbLocal({
  port,
  dbPath,
  onStarted = () => {},
}: {
  port: number;
  dbPath: string;
  onStarted?: (pid: number) => void;
}) {
  let current = await startDynamoDbLocal({ port, dbPath, quiet: true });
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const restart = (attempt: number) => {
    timer = setTimeout(
      async () => {
        if (stopping) return;
        try {
          current = await startDynamoDbLocal({ port: current.port, dbPath, quiet: true });
          if (current.process.pid) onStarted(current.process.pid);
          console.error('DynamoDB Local is back, on the same data: requests are served again.');
          watch();
        } catch (error) {
          console.error(
            `DynamoDB Local did not start (${String(error instanceof Error ? error.message : error).split('\n')[0]}); trying again in ${backoffStepMs(attempt + 1, RESTART) / 1000} s.`,
          );
          restart(attempt + 1);
        }
      },
      backoffStepMs(attempt, RESTART),
    );
  };

  const watch = () => {
    current.process.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(
        `DynamoDB Local exited (${code ?? signal}); starting it again in ${RESTART.baseMs / 1000} s on the same data. Requests answer 503 meanwhile.`,
      );
      restart(1);
    });
  };
  watch();

  return {
    endpoint: current.endpoint,
    /** The DynamoDB Local process running now (for tests that kill it). */
    process: () => current.process,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await current.stop();
    },
  };
}
