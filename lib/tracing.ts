/**
 * One trace per notification (docs/operations.md, "Following a notification"): the W3C trace
 * context a notification carries from its `POST …/events` to its consumer's `traceparent`, and AWS
 * X-Ray through Powertools' Tracer where the functions run in Lambda with active tracing.
 *
 * The trace of a request is made where the request enters (`httpRoute`): the producer's own
 * `traceparent` when it sent a valid one (its trace is joined: its trace id is kept), else the
 * X-Ray trace Lambda started for the invocation, else (locally, on a node) a new random one. What
 * the request enqueues for delivery carries it in the queue messages (lib/delivery/messages.ts).
 *
 * The tracer (the X-Ray SDK: 124 KiB, about 20 ms to load, and an async hook on every promise) is
 * loaded only where tracing is on: in Lambda, unless POWERTOOLS_TRACE_ENABLED=false. `npm start`,
 * the node agent and the tests never load it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';

export interface TraceContext {
  /** 32 lowercase hex digits, never all zeros. */
  readonly traceId: string;
  /** 16 lowercase hex digits: the span of whoever makes the request that carries it. */
  readonly spanId: string;
  /** The W3C `sampled` flag: the trace is recorded upstream. */
  readonly sampled: boolean;
}

/** `version-traceid-parentid-flags`; a version after 00 may append fields (W3C Trace Context 3.2). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZEROS = /^0+$/;
/** X-Ray's trace id: `1-` 8 hex digits of epoch seconds, `-`, 24 random hex digits. */
const XRAY_ROOT = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/;

/** A `traceparent` header's trace, or undefined when it is not a valid one (it is then ignored, as W3C says). */
export function parseTraceparent(header: string | undefined): TraceContext | undefined {
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId = '', spanId = '', flags = '00', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` header of a request made in `trace`, version 00. */
export function formatTraceparent({ traceId, spanId, sampled }: TraceContext): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/** A span of its own in the same trace: what a request made from within `trace` carries. */
export function childOf(trace: TraceContext): TraceContext {
  return { ...trace, spanId: randomHex(8) };
}

/**
 * The trace of something queued before messages carried one: made from what identifies it (an
 * event's publisher, source and id), so that every hop and every retry of it agrees.
 */
export function traceFromIdentity(identity: string): TraceContext {
  const digest = createHash('sha256').update(identity).digest('hex');
  return { traceId: digest.slice(0, 32), spanId: digest.slice(32, 48), sampled: true };
}

/** X-Ray's trace id (`1-5759e988-bd862e3fe1be46a994272793`) in W3C's form (`5759e988bd862e3fe1be46a994272793`). */
export function w3cTraceIdOf(xrayTraceId: string): string | undefined {
  const match = XRAY_ROOT.exec(xrayTraceId);
  return match ? `${match[1]}${match[2]}` : undefined;
}

/** A W3C trace id as X-Ray writes it, to look it up in the X-Ray console. */
export function xrayTraceIdOf(traceId: string): string {
  return `1-${traceId.slice(0, 8)}-${traceId.slice(8)}`;
}

function randomHex(bytes: number): string {
  let hex = randomBytes(bytes).toString('hex');
  while (ALL_ZEROS.test(hex)) hex = randomBytes(bytes).toString('hex');
  return hex;
}

// --- the request's trace -----------------------------------------------------------------------

const requestTraces = new AsyncLocalStorage<TraceContext>();

/**
 * The trace of a request that entered with `traceparent` (its header, if any): the producer's trace
 * joined, or the invocation's X-Ray trace, or a new one. Its span is this invocation's (X-Ray's
 * handler subsegment when traced).
 */
export function traceOfRequest(traceparent: string | undefined): TraceContext {
  const joined = parseTraceparent(traceparent);
  const xray = xrayTrace();
  if (joined)
    return { traceId: joined.traceId, spanId: xray?.spanId ?? randomHex(8), sampled: joined.sampled };
  // Untraced (locally, on a node): every notification is in the local logs, so it is sampled.
  return xray ?? { traceId: randomHex(16), spanId: randomHex(8), sampled: true };
}

/** Runs `work` in `trace`: what it enqueues and sends carries it (`currentTrace`). */
export function inTrace<T>(trace: TraceContext, work: () => T): T {
  return requestTraces.run(trace, work);
}

/** The trace of the request being handled; a new one outside any (a tool, a test). */
export function currentTrace(): TraceContext {
  return requestTraces.getStore() ?? traceOfRequest(undefined);
}

// --- AWS X-Ray, through Powertools' Tracer -----------------------------------------------------

let tracer: Tracer | undefined;
let loading: Promise<Tracer | undefined> | undefined;

/** In Lambda (not serverless offline, which sets no AWS_EXECUTION_ENV), unless switched off. */
function tracingWanted(): boolean {
  return (
    (process.env.AWS_EXECUTION_ENV ?? '').startsWith('AWS_Lambda_') &&
    (process.env.POWERTOOLS_TRACE_ENABLED ?? '').toLowerCase() !== 'false'
  );
}

function loadTracer(): Promise<Tracer | undefined> {
  loading ??= tracingWanted()
    ? import('@aws-lambda-powertools/tracer').then(({ Tracer }) => {
        // Outgoing HTTP is not patched: X-Ray's patch would add its own header to every consumer's
        // POST (the consumer gets `traceparent`) and a subsegment per AWS call beside the SDK's.
        tracer = new Tracer({ captureHTTPsRequests: false });
        return tracer;
      })
    : Promise.resolve(undefined);
  return loading;
}

/** The invocation's X-Ray trace and current (sub)segment, when tracing is on and sampled or not. */
function xrayTrace(): TraceContext | undefined {
  if (!tracer?.isTracingEnabled()) return undefined;
  const root = tracer.getRootXrayTraceId();
  const traceId = root === undefined ? undefined : w3cTraceIdOf(root);
  const segment = tracer.getSegment();
  if (!traceId || !segment) return undefined;
  return { traceId, spanId: segment.id, sampled: tracer.isTraceSampled() };
}

/**
 * The X-Ray trace header of the current segment (`Root=…;Parent=…;Sampled=…`), for the
 * `AWSTraceHeader` of the SQS messages a traced function sends: X-Ray links the invocation that
 * receives them to this one. Undefined when not traced.
 */
export function xrayTraceHeader(): string | undefined {
  const xray = xrayTrace();
  if (!xray) return undefined;
  return `Root=${xrayTraceIdOf(xray.traceId)};Parent=${xray.spanId};Sampled=${xray.sampled ? 1 : 0}`;
}

/** Names the notification's trace on the current X-Ray segment, so that X-Ray finds it by `annotation.traceId`. */
export function annotateTrace(trace: TraceContext): void {
  tracer?.putAnnotation('traceId', trace.traceId);
}

/**
 * An AWS SDK client whose calls X-Ray records (each a subsegment, and the trace header on the
 * request); the client itself where tracing is off. Clients are built on first use, inside an
 * invocation, after `tracing()` has loaded the tracer.
 */
export function traced<T extends object>(client: T): T {
  return tracer?.isTracingEnabled() ? tracer.captureAWSv3Client(client) : client;
}

/**
 * Powertools' `captureLambdaHandler` (the function's handler as an X-Ray subsegment, with the
 * cold-start and service annotations; never the response, which may hold a signing secret), the
 * tracer loaded at the first invocation where tracing is on, a no-op elsewhere. First in every
 * function's middlewares, so that everything after it runs in its subsegment.
 */
export function tracing<TEvent, TResult>(): middy.MiddlewareObj<TEvent, TResult, Error, Context> {
  let inner: Promise<middy.MiddlewareObj<TEvent, TResult, Error, Context> | undefined> | undefined;
  const middleware = () => {
    inner ??= loadTracer().then(async (loaded) => {
      if (!loaded) return undefined;
      const { captureLambdaHandler } = await import('@aws-lambda-powertools/tracer/middleware');
      return captureLambdaHandler(loaded, { captureResponse: false }) as middy.MiddlewareObj<
        TEvent,
        TResult,
        Error,
        Context
      >;
    });
    return inner;
  };
  return {
    before: async (request) => (await middleware())?.before?.(request),
    after: async (request) => (await middleware())?.after?.(request),
    onError: async (request) => (await middleware())?.onError?.(request),
  };
}
