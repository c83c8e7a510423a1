/**
 * One notification's path for the local dashboard (docs/operations.md, "Following a notification"):
 * the log lines the functions print about it under `npm start` — accepted by publishEvent, fanned
 * out, each delivery attempt with its outcome — gathered by their `traceId` (lib/tracing.ts), the
 * trace id the consumer finds in `traceparent` and the producer in `traceresponse`. Kept in memory
 * for the most recent notifications only.
 */

/** A step of the path: one log line, with what the page shows of it. */
export interface PathStep {
  readonly at: string;
  /** The function's key in serverless.yml (offline names them `<service>-<stage>-<key>`). */
  readonly function: string;
  readonly level: string;
  readonly message: string;
  readonly details: Record<string, unknown>;
}

/** The keys every line has, which say nothing of the notification. */
const CONTEXT_KEYS = new Set([
  'timestamp',
  'level',
  'message',
  'service',
  'sampling_rate',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'xray_trace_id',
  'traceId',
  'apiRequestId',
]);
const TRACE_ID = /^[0-9a-f]{32}$/;

export type TraceJournal = ReturnType<typeof createTraceJournal>;

export function createTraceJournal({ maxTraces = 2000, maxSteps = 500 } = {}) {
  /** Trace id → its steps in arrival order; the oldest trace is forgotten first. */
  const traces = new Map<string, PathStep[]>();
  return {
    /** One line a function printed (anything else is ignored). */
    line(text: string) {
      if (!text.startsWith('{') || !text.includes('"traceId"')) return;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text);
      } catch {
        return;
      }
      const traceId = line.traceId;
      if (typeof traceId !== 'string' || !TRACE_ID.test(traceId)) return;
      let steps = traces.get(traceId);
      if (!steps) {
        if (traces.size >= maxTraces) traces.delete(traces.keys().next().value ?? '');
        steps = [];
        traces.set(traceId, steps);
      }
      if (steps.length >= maxSteps) return;
      steps.push({
        at: String(line.timestamp ?? new Date().toISOString()),
        function: String(line.function_name ?? '').replace(/^ocloud-notifications-[^-]+-/, ''),
        level: String(line.level ?? ''),
        message: String(line.message ?? ''),
        details: Object.fromEntries(Object.entries(line).filter(([key]) => !CONTEXT_KEYS.has(key))),
      });
    },
    /** The notification's steps by time, or undefined for a trace not seen (or forgotten). */
    path(traceId: string): PathStep[] | undefined {
      const steps = traces.get(traceId);
      return steps && [...steps].sort((a, b) => a.at.localeCompare(b.at));
    },
    /** The newest notifications first: their trace id, when and what was accepted. */
    recent(limit = 50) {
      return [...traces]
        .slice(-limit)
        .reverse()
        .map(([traceId, steps]) => ({
          traceId,
          at: steps[0]?.at,
          first: steps[0]?.message,
          steps: steps.length,
        }));
    },
  };
}
