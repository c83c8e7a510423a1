/**
 * What a notification costs in AWS and how long its path takes there, derived from recorded calls
 * (bench/aws-calls.mjs) and nothing timed: the prices, the per-hop latency model, the order of a
 * path's calls, the totals per notification. docs/cost-model.md explains the method.
 */
import type { AwsCall, Invocation } from '../../bench/aws-calls.mjs';
import { serverlessYml } from '../../bench/common.mjs';
import { billedUnits } from './billing';

/**
 * us-east-1 list prices in USD per million (GB-seconds: per GB-second), from each service's
 * pricing page: DynamoDB on-demand since 1 Nov 2024 (https://aws.amazon.com/dynamodb/pricing/on-demand/);
 * SQS standard queues, each 64 KB of a request's payload one request (https://aws.amazon.com/sqs/pricing/);
 * Lambda on arm64, the first duration tier (https://aws.amazon.com/lambda/pricing/); API Gateway
 * HTTP APIs, the first 300 million requests (https://aws.amazon.com/api-gateway/pricing/); KMS
 * requests, $0.03 per 10,000 (https://aws.amazon.com/kms/pricing/).
 */
export const PRICES = {
  writeRequestUnit: 0.625,
  readRequestUnit: 0.125,
  sqsRequest: 0.4,
  lambdaRequest: 0.2,
  lambdaGbSecond: 0.0000133334,
  httpApiRequest: 1.0,
  kmsRequest: 3.0,
};

/**
 * The latency model, in ms, from the published figures docs/benchmarks.md uses ("An estimate for
 * AWS"): an SQS standard queue → Lambda hop 16 ms p50 / 105 ms p99; DynamoDB single-digit
 * milliseconds a call, here 5 ms p50 and 10 ms p99 (no figure is published for SQS's or KMS's API
 * calls: they are modelled as DynamoDB's); a warm Lambda's own overhead 1 ms an invocation. A
 * path's p99 adds its hops' p99s: an upper bound, as tails rarely coincide.
 */
export const LATENCY_MS = {
  queueHop: { p50: 16, p99: 105 },
  awsCall: { p50: 5, p99: 10 },
  invocation: { p50: 1, p99: 1 },
};

/** Each function's memory in MB (serverless.yml): its own `memorySize`, else the provider's. */
export async function functionMemoryMb(): Promise<Record<string, number>> {
  const { provider, functions } = await serverlessYml();
  return Object.fromEntries(
    Object.entries(functions).map(([n, f]) => [n, f.memorySize ?? provider.memorySize ?? 1024]),
  );
}

/**
 * The calls of one invocation, in the order they ran, grouped into steps: a call that starts
 * before every call of the current step has ended runs beside them (a Promise.all), one that starts
 * after them all begins the next step. Decided from the recorded start and end of each call.
 */
export function sequentialSteps(calls: readonly AwsCall[]): AwsCall[][] {
  const steps: AwsCall[][] = [];
  let stepEnd = Number.NEGATIVE_INFINITY;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    const current = steps.at(-1);
    if (current && call.startedAt < stepEnd) {
      current.push(call);
      stepEnd = Math.max(stepEnd, call.endedAt);
    } else {
      steps.push([call]);
      stepEnd = call.endedAt;
    }
  }
  return steps;
}

export const callName = (call: AwsCall) => `${call.service} ${call.command}`;

type Quantile = 'p50' | 'p99';

/** The modelled duration of an invocation: its overhead and one AWS call a step. */
const modelledInvocationMs = (steps: number, at: Quantile) =>
  LATENCY_MS.invocation[at] + steps * LATENCY_MS.awsCall[at];

export interface NotificationRun {
  notifications: number;
  /** Every call of the run: the functions' and the event sources' (their ReceiveMessage and DeleteMessageBatch are billed SQS requests). */
  calls: readonly AwsCall[];
  /** The run's function invocations. */
  invocations: readonly Invocation[];
  /** Each function's memory (serverless.yml). */
  memoryMb: Record<string, number>;
  /** The HTTP API requests of the run (the publishes). */
  httpRequests: number;
}

/**
 * Per notification: DynamoDB requests and units, SQS and KMS requests, Lambda invocations and
 * GB-seconds (each invocation's modelled p50 duration, rounded up to the ms as Lambda bills it, at
 * its function's memory), HTTP API requests, and the dollars per million notifications.
 */
export function notificationCost(run: NotificationRun) {
  const per = (total: number) => total / run.notifications;
  const of = (service: string) => run.calls.filter((c) => c.service === service);
  const dynamo = of('DynamoDB').map((call) => billedUnits(call));
  const callsOf = new Map<number, AwsCall[]>();
  for (const call of run.calls) {
    if (!call.invocation) continue;
    const calls = callsOf.get(call.invocation.id) ?? [];
    calls.push(call);
    callsOf.set(call.invocation.id, calls);
  }
  let gbSeconds = 0;
  for (const { id, name } of run.invocations) {
    const ms = Math.ceil(modelledInvocationMs(sequentialSteps(callsOf.get(id) ?? []).length, 'p50'));
    const memoryMb = run.memoryMb[name];
    if (memoryMb === undefined) throw new Error(`${name} is no function of serverless.yml`);
    gbSeconds += (ms / 1000) * (memoryMb / 1024);
  }
  const figures = {
    dynamoRequests: per(dynamo.length),
    readUnits: per(dynamo.reduce((n, units) => n + units.read, 0)),
    writeUnits: per(dynamo.reduce((n, units) => n + units.write, 0)),
    sqsRequests: per(of('SQS').length),
    kmsRequests: per(of('KMS').length),
    invocations: per(run.invocations.length),
    gbSeconds: per(gbSeconds),
    httpRequests: per(run.httpRequests),
  };
  const dollars = {
    DynamoDB: figures.readUnits * PRICES.readRequestUnit + figures.writeUnits * PRICES.writeRequestUnit,
    SQS: figures.sqsRequests * PRICES.sqsRequest,
    KMS: figures.kmsRequests * PRICES.kmsRequest,
    Lambda: figures.invocations * PRICES.lambdaRequest + figures.gbSeconds * 1e6 * PRICES.lambdaGbSecond,
    'HTTP API': figures.httpRequests * PRICES.httpApiRequest,
  };
  const total = Object.values(dollars).reduce((n, d) => n + d, 0);
  return { ...figures, dollarsPerMillion: total, dollars };
}

/** An invocation on the path, with the steps of it the path waits for. */
export interface PathInvocation {
  name: string;
  steps: AwsCall[][];
}

/**
 * A path's sequential AWS calls and queue hops, and its modelled latency: each invocation's
 * overhead and steps, one queue hop between two invocations.
 * @param invocations in path order
 */
export function criticalPath(invocations: readonly PathInvocation[]) {
  const awsCalls = invocations.reduce((n, i) => n + i.steps.length, 0);
  const queueHops = Math.max(0, invocations.length - 1);
  const latency = (at: Quantile) =>
    queueHops * LATENCY_MS.queueHop[at] +
    invocations.reduce((n, i) => n + modelledInvocationMs(i.steps.length, at), 0);
  const text = invocations
    .map((i) => `${i.name} [${i.steps.map((step) => step.map(callName).join(' ‖ ')).join(' → ')}]`)
    .join(' ⇒ queue ⇒ ');
  return {
    awsCalls,
    queueHops,
    hops: awsCalls + queueHops,
    p50Ms: latency('p50'),
    p99Ms: latency('p99'),
    text,
  };
}
