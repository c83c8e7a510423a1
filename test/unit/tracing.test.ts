/** W3C Trace Context's `traceparent` as the service reads and writes it (lib/tracing.ts). */
import { describe, expect, it } from 'vitest';
import {
  childOf,
  currentTrace,
  formatTraceparent,
  inTrace,
  parseTraceparent,
  traceOfRequest,
  w3cTraceIdOf,
  xrayTraceIdOf,
} from '../../lib/tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

describe('traceparent', () => {
  it("reads W3C's example, and writes it back the same", () => {
    const header = `00-${TRACE_ID}-${SPAN_ID}-01`;
    expect(parseTraceparent(header)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, sampled: true });
    expect(formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, sampled: true })).toBe(header);
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-00`)?.sampled).toBe(false);
  });

  it('reads a later version by its first four fields, fields it appends ignored', () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-03-whatever`)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      sampled: true,
    });
  });

  it.each([
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['version 00 with more fields', `00-${TRACE_ID}-${SPAN_ID}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['no flags', `00-${TRACE_ID}-${SPAN_ID}`],
    ['an X-Ray header', 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1'],
  ])('ignores %s', (_what, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe("a request's trace", () => {
  it("joins the producer's trace: its trace id and sampling, a span of this service's own", () => {
    const trace = traceOfRequest(`00-${TRACE_ID}-${SPAN_ID}-00`);
    expect(trace).toMatchObject({ traceId: TRACE_ID, sampled: false });
    expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.spanId).not.toBe(SPAN_ID);
  });

  it('is a new sampled trace without a valid traceparent (untraced, as locally)', () => {
    const [a, b] = [traceOfRequest(undefined), traceOfRequest('garbage')];
    expect(formatTraceparent(a)).toMatch(TRACEPARENT);
    expect(a.sampled).toBe(true);
    expect(b.traceId).not.toBe(a.traceId);
  });

  it('is what the work run in it sees; a child is a new span of the same trace', async () => {
    const trace = traceOfRequest(undefined);
    const seen = await inTrace(trace, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentTrace();
    });
    expect(seen).toBe(trace);
    const child = childOf(trace);
    expect(child).toMatchObject({ traceId: trace.traceId, sampled: true });
    expect(child.spanId).not.toBe(trace.spanId);
  });

  it("converts X-Ray's trace id to W3C's and back", () => {
    expect(w3cTraceIdOf('1-5759e988-bd862e3fe1be46a994272793')).toBe('5759e988bd862e3fe1be46a994272793');
    expect(xrayTraceIdOf('5759e988bd862e3fe1be46a994272793')).toBe('1-5759e988-bd862e3fe1be46a994272793');
    expect(w3cTraceIdOf('Root=1-5759e988-bd862e3fe1be46a994272793')).toBeUndefined();
  });
});
