/**
 * A traced function's SQS messages carry its X-Ray trace header as the AWSTraceHeader system
 * attribute, which X-Ray follows to link the invocation that receives them (docs/operations.md).
 * This file runs as a Lambda with active tracing does (the runtime's variables, set before anything
 * is imported), so that Powertools' Tracer and the X-Ray SDK are loaded for real; the other test
 * files never load them. The messages go to the local queue, which speaks SQS's protocol.
 */
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import middy from '@middy/core';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = '1-6b0bcf0c-a1b2c3d4e5f6a1b2c3d4e5f6';
const daemon = dgram.createSocket('udp4');
const segments: Array<{ id: string; name: string }> = [];

beforeAll(async () => {
  daemon.on('message', (message) => segments.push(JSON.parse(message.toString().split('\n')[1] ?? '{}')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // What the Lambda runtime sets with active tracing; read by lib/tracing.ts when the tracer loads.
  Object.assign(process.env, {
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: process.cwd(),
    _HANDLER: 'functions/queue/fan-out.handler',
    _X_AMZN_TRACE_ID: `Root=${ROOT};Parent=53995c3f42cd8ad8;Sampled=1`,
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
  });
});

afterAll(() => {
  daemon.close();
  for (const name of [
    'AWS_EXECUTION_ENV',
    'LAMBDA_TASK_ROOT',
    '_HANDLER',
    '_X_AMZN_TRACE_ID',
    'AWS_XRAY_DAEMON_ADDRESS',
  ]) {
    delete process.env[name];
  }
});

it('sends every message of a traced function with its trace header, the handler subsegment as their parent', async () => {
  const { startLocalQueue } = await import('../../scripts/local-queue');
  const { SqsQueue, sqsClient } = await import('../../lib/queue/sqs-queue');
  const { tracing } = await import('../../lib/tracing');
  const { recordAwsCalls } = await import('../../bench/aws-calls.mjs');
  const queue = await startLocalQueue({ log: () => undefined });
  try {
    const adapter = new SqsQueue({ 'fan-out': queue.env.FANOUT_QUEUE_URL });
    const handler = middy()
      .use(tracing())
      .handler(async () => {
        const recording = recordAwsCalls(sqsClient());
        await adapter.send(
          'fan-out',
          Array.from({ length: 12 }, (_, i) => ({ body: `m${i}` })),
        );
        return recording.take();
      });
    const calls = (await handler({}, {} as never)) as Array<{
      command: string;
      input: Record<string, unknown>;
    }>;
    expect(calls.map((call) => call.command)).toEqual(['SendMessageBatch', 'SendMessageBatch']);
    const headers = calls.flatMap((call) =>
      (
        call.input.Entries as Array<{
          MessageSystemAttributes?: { AWSTraceHeader?: { StringValue?: string } };
        }>
      ).map((entry) => entry.MessageSystemAttributes?.AWSTraceHeader?.StringValue),
    );
    expect(headers).toHaveLength(12);
    const parent = /^Root=1-6b0bcf0c-a1b2c3d4e5f6a1b2c3d4e5f6;Parent=([0-9a-f]{16});Sampled=1$/.exec(
      headers[0] ?? '',
    )?.[1];
    expect(new Set(headers)).toEqual(new Set([headers[0]]));
    expect(queue.messages('fan-out')).toHaveLength(12);
    // The parent is the handler's subsegment, which X-Ray receives, and each send is one of its own.
    await expect
      .poll(() => segments.map((segment) => segment.name).sort())
      .toEqual(['## functions/queue/fan-out.handler', 'SQS', 'SQS']);
    expect(segments.find((segment) => segment.name.startsWith('##'))?.id).toBe(parent);
  } finally {
    await queue.stop();
  }
});
