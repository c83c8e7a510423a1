/**
 * One trace per notification (contract: "Tracing"; docs/operations.md): the trace named to the
 * producer at `POST …/events` is the one on every consumer's `traceparent`, every attempt a span of
 * its own; a producer's own `traceparent` is joined; a subscribe's initial notification is in the
 * subscribe's trace. Through the real handlers, the local queue and consumers on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../lib/tracing';
import { trackConsumers } from '../support/consumer';
import { lockStateEvent } from '../support/fixtures';
import { api, expectJson, freshNode, LOCK_STATE, registerPublisher, type SubscriptionInfo } from './api';

const startConsumer = trackConsumers();
const PRODUCER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';

/** A publisher at a fresh node, and two consumers subscribed to it (`replies`: the first one's). */
async function subscribed(replies?: Parameters<typeof startConsumer>[0]) {
  const node = freshNode();
  const address = `${node}${LOCK_STATE}`;
  const publisherId = await registerPublisher(address);
  const consumers = [await startConsumer(replies), await startConsumer()] as const;
  for (const consumer of consumers) {
    expectJson<SubscriptionInfo>(
      await api.createSubscription({ ResourceAddress: address, EndpointUri: consumer.url }),
      201,
    );
  }
  return { node, publisherId, consumers };
}

const traceOf = (header: unknown) => {
  const trace = parseTraceparent(String(header));
  if (!trace) throw new Error(`not a traceparent: ${header}`);
  return trace;
};

describe('the trace of a notification', () => {
  it("is named to the producer (traceresponse) and is on every consumer's traceparent, each POST a span of its own", async () => {
    const { node, publisherId, consumers } = await subscribed();
    const response = await api.publish(publisherId, lockStateEvent({ node }));
    expect(response.status, response.rawBody).toBe(202);
    const accepted = traceOf(response.headers.traceresponse);
    const received = await Promise.all(consumers.map(async (consumer) => (await consumer.waitFor(1))[0]));
    const spans = received.map((notification) => {
      const trace = traceOf(notification?.headers.traceparent);
      expect(trace).toMatchObject({ traceId: accepted.traceId, sampled: true });
      return trace.spanId;
    });
    expect(new Set([...spans, accepted.spanId]).size).toBe(3);
  });

  it("joins the producer's traceparent: its trace id and sampled flag go to the consumer", async () => {
    const { node, publisherId, consumers } = await subscribed();
    const response = await api.publish(publisherId, lockStateEvent({ node }), {
      headers: { traceparent: `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-00` },
    });
    expect(response.status, response.rawBody).toBe(202);
    expect(traceOf(response.headers.traceresponse)).toMatchObject({
      traceId: PRODUCER_TRACE,
      sampled: false,
    });
    const [notification] = await consumers[0].waitFor(1);
    expect(notification?.headers.traceparent).toMatch(new RegExp(`^00-${PRODUCER_TRACE}-[0-9a-f]{16}-00$`));
    expect(traceOf(notification?.headers.traceparent).spanId).not.toBe(PRODUCER_SPAN);
  });

  it('starts a trace of its own when the producer sent a traceparent that is not valid', async () => {
    const { node, publisherId, consumers } = await subscribed();
    const response = await api.publish(publisherId, lockStateEvent({ node }), {
      headers: { traceparent: `00-${'0'.repeat(32)}-${PRODUCER_SPAN}-01` },
    });
    expect(response.status, response.rawBody).toBe(202);
    const { traceId } = traceOf(response.headers.traceresponse);
    expect(traceId).not.toMatch(/^0+$/);
    const [notification] = await consumers[1].waitFor(1);
    expect(traceOf(notification?.headers.traceparent).traceId).toBe(traceId);
  });

  it('keeps its trace id on a retry, in a new span', async () => {
    const { node, publisherId, consumers } = await subscribed([
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 204 },
    ]);
    const response = await api.publish(publisherId, lockStateEvent({ node }));
    const { traceId } = traceOf(response.headers.traceresponse);
    const attempts = await consumers[0].waitFor(2);
    const traces = attempts.map((attempt) => traceOf(attempt.headers.traceparent));
    expect(traces.map((trace) => trace.traceId)).toEqual([traceId, traceId]);
    expect(traces[0]?.spanId).not.toBe(traces[1]?.spanId);
  });

  it("goes to a new subscriber's initial notification in the trace of its subscribe", async () => {
    const node = freshNode();
    const address = `${node}${LOCK_STATE}`;
    const publisherId = await registerPublisher(address);
    expect((await api.publish(publisherId, lockStateEvent({ node }))).status).toBe(202);
    const consumer = await startConsumer();
    const response = await api.createSubscription(
      { ResourceAddress: address, EndpointUri: consumer.url },
      { headers: { traceparent: `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-01` } },
    );
    expect(response.status, response.rawBody).toBe(201);
    const [initial] = await consumer.waitFor(1);
    expect(traceOf(initial?.headers.traceparent).traceId).toBe(PRODUCER_TRACE);
  });
});
