import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as emitGauges } from '../../functions/schedule/emit-gauges';
import { validateEvent } from '../../lib/domain/event';
import { ROUTES } from '../../lib/http/routes';
import queues from '../../lib/queue/queues.json';
import { producerGrants } from '../../lib/services';
import { deadLetterItem } from '../../lib/store/dead-letter-store';
import tableSchema from '../../lib/store/table-schema.json';
import { xrayTraceIdOf } from '../../lib/tracing';
import packageJson from '../../package.json';
import { DEFAULT_CONSUMERS } from '../../scripts/local-queue';
import { api, freshNode, LOCK_STATE, registerPublisher } from '../support/api';
import { startConsumer } from '../support/consumer';
import { captureEmf, type EmfRecord, emfProblems } from '../support/emf';
import { lockStateEvent } from '../support/fixtures';
import { httpApiEvent, lambdaContext } from '../support/http-event';
import { waitForQueueIdle } from '../support/queue-idle';
import { useQueuedDelivery } from '../support/queued-delivery';

useQueuedDelivery();

/**
 * `serverless package --stage prod` is what an operator deploys: these tests read the generated
 * CloudFormation and check routes, authorisers, permissions, table, queues, alarms and dashboard.
 */
const run = promisify(execFile);

type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  Condition?: string;
};
type Template = { Resources: Record<string, Resource>; Conditions?: Record<string, unknown> };

/** The per-function bundle budget docs/testing.md states. */
const BUNDLE_BUDGET_BYTES = 256 * 1024;

/**
 * STACK_PACKAGE_DIR (set by .ci/run; outside the project, whose .serverless the other serverless
 * runs clear): where to write the default prod package and keep it, so that CI checks and lists the
 * very package these tests read instead of building the stack again.
 */
const keptPackageDir = process.env.STACK_PACKAGE_DIR;

async function packageStack(
  extraArgs: string[] = [],
  into?: string,
): Promise<{ dir: string; template: Template; keep: boolean }> {
  const dir = into ?? (await mkdtemp(join(tmpdir(), 'ocloud-package-')));
  await run('node_modules/.bin/serverless', ['package', '--stage', 'prod', '--package', dir, ...extraArgs], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 180_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const template = JSON.parse(await readFile(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  return { dir, template, keep: into !== undefined };
}

interface MetricQuery {
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] } };
}

const byType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

const PRODUCER_ROUTES = [
  'POST /api/ocloudNotifications/v2/publishers',
  'GET /api/ocloudNotifications/v2/publishers/{publisherId}',
  'DELETE /api/ocloudNotifications/v2/publishers/{publisherId}',
  'POST /api/ocloudNotifications/v2/publishers/{publisherId}/events',
];
const CONSUMER_ROUTES = [
  'POST /api/ocloudNotifications/v2/subscriptions',
  'GET /api/ocloudNotifications/v2/subscriptions',
  'DELETE /api/ocloudNotifications/v2/subscriptions',
  'GET /api/ocloudNotifications/v2/subscriptions/{subscriptionId}',
  'DELETE /api/ocloudNotifications/v2/subscriptions/{subscriptionId}',
  'POST /api/ocloudNotifications/v2/subscriptions/{subscriptionId}/secret/rotate',
  'GET /api/ocloudNotifications/v2/subscriptions/{subscriptionId}/deliveries',
  'GET /api/ocloudNotifications/v2/subscriptions/{subscriptionId}/dead-letters',
  'POST /api/ocloudNotifications/v2/subscriptions/{subscriptionId}/dead-letters/redrive',
  'GET /api/ocloudNotifications/v2/{proxy+}',
  'GET /api/ocloudNotifications/v2/publishers',
];
const OPEN_ROUTES = [
  'GET /api/ocloudNotifications/v2/health',
  'GET /api/ocloudNotifications/v2/signing-keys',
  'GET /api/ocloudNotifications/v2/openapi.json',
  '$default',
];

function routes(template: Template): Record<string, { type: string; authorizer: unknown }> {
  return Object.fromEntries(
    byType(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => [
      route.Properties.RouteKey as string,
      {
        type: (route.Properties.AuthorizationType as string | undefined) ?? 'NONE',
        authorizer: route.Properties.AuthorizerId,
      },
    ]),
  );
}

// Small limits for the handlers this file runs in-process (printedMetrics, which makes each refusal
// and a suspension once), read when first used: the breaker's suspension time 1 s, a quota of 2
// publishers per producer, bursts of 3 events.
process.env.ENDPOINT_SUSPEND_AFTER_SECONDS = '1';
process.env.PUBLISHERS_PER_PRODUCER = '2';
process.env.PUBLISHER_EVENT_BURST = '3';

const TLS_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:endpoint-tls-AbCdEf';

describe('serverless package --stage prod', () => {
  let iam: { dir: string; template: Template; keep: boolean };
  let jwt: { dir: string; template: Template; keep: boolean };

  beforeAll(async () => {
    // One after the other: both builds use the service's esbuild work directory.
    iam = await packageStack([], keptPackageDir);
    jwt = await packageStack([
      '--param=consumerAuth=jwt',
      '--param=jwtIssuerUrl=https://issuer.example.com/',
      '--param=jwtAudience=ocloud-consumers',
      '--param=publicBaseUrl=https://notify.example.com',
      `--param=endpointTlsSecret=${TLS_SECRET_ARN}`,
    ]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(
      [iam, jwt]
        .filter((packaged) => packaged && !packaged.keep)
        .map(({ dir }) => rm(dir, { recursive: true, force: true })),
    );
  });

  it('declares every route of the contract, producers behind IAM and consumers behind IAM by default', () => {
    const declared = routes(iam.template);
    expect(Object.keys(declared).sort()).toEqual(
      [...PRODUCER_ROUTES, ...CONSUMER_ROUTES, ...OPEN_ROUTES].sort(),
    );
    for (const route of [...PRODUCER_ROUTES, ...CONSUMER_ROUTES])
      expect(declared[route]?.type, route).toBe('AWS_IAM');
    for (const route of OPEN_ROUTES) expect(declared[route]?.type, route).toBe('NONE');
  });

  it('declares exactly the routes of lib/http/routes.ts, the table the 405 answers come from', () => {
    const declared = Object.keys(routes(iam.template)).filter((key) => key !== '$default');
    const table = ROUTES.map(
      (r) =>
        `${r.method} /api/ocloudNotifications/v2${r.path.replace('/{ResourceAddress}/CurrentState', '/{proxy+}')}`,
    );
    expect(declared.sort()).toEqual(table.sort());
  });

  it('puts consumer routes behind a JWT authoriser when consumerAuth=jwt, producers still behind IAM', () => {
    const declared = routes(jwt.template);
    for (const route of CONSUMER_ROUTES) {
      expect(declared[route], route).toEqual({
        type: 'JWT',
        authorizer: { Ref: 'HttpApiAuthorizerConsumerJwt' },
      });
    }
    for (const route of PRODUCER_ROUTES) expect(declared[route]?.type, route).toBe('AWS_IAM');
    const [, authorizer] = byType(jwt.template, 'AWS::ApiGatewayV2::Authorizer')[0] ?? [];
    expect(authorizer?.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Audience: ['ocloud-consumers'], Issuer: 'https://issuer.example.com/' },
    });
    const functions = byType(jwt.template, 'AWS::Lambda::Function');
    for (const [, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.CONSUMER_AUTH).toBe('jwt');
    }
  });

  it('passes the publicBaseUrl parameter to every function as PUBLIC_BASE_URL (empty by default)', () => {
    const publicBaseUrls = (template: Template) =>
      Object.values(template.Resources)
        .filter((r) => r.Type === 'AWS::Lambda::Function')
        .map(
          (r) =>
            (r.Properties.Environment as { Variables: Record<string, unknown> }).Variables.PUBLIC_BASE_URL,
        );
    expect(new Set(publicBaseUrls(iam.template))).toEqual(new Set(['']));
    expect(new Set(publicBaseUrls(jwt.template))).toEqual(new Set(['https://notify.example.com']));
  });

  it('runs every function on one Node runtime, an active LTS that package.json supports (and CI tests on), each with a role of its own', () => {
    const functions = byType(iam.template, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(15);
    const roles = new Set<string>();
    const majors = new Set<number>();
    for (const [, fn] of functions) {
      majors.add(Number(/^nodejs(\d+)\.x$/.exec(String(fn.Properties.Runtime))?.[1]));
      roles.add(JSON.stringify(fn.Properties.Role));
    }
    expect([...majors]).toHaveLength(1);
    const [major] = majors;
    expect(major).toBeGreaterThanOrEqual(24);
    expect(packageJson.engines.node.split('||').map((range) => range.trim())).toContain(`^${major}.0.0`);
    expect(roles.size).toBe(functions.length);
    expect(iam.template.Resources.IamRoleLambdaExecution).toBeUndefined();
  });

  it('grants each function only the table and queue actions it needs', () => {
    /** The functions that deliver: deliver, and fan-out for a batch of few notifications. */
    const SENDER_ACTIONS = [
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PartiQLUpdate',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'kms:Decrypt',
      'secretsmanager:GetSecretValue',
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ];
    const expected: Record<string, string[]> = {
      CreateSubscription: [
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        'secretsmanager:GetSecretValue',
        'sqs:SendMessage',
      ],
      RotateSubscriptionSecret: [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'kms:Decrypt',
        'kms:GenerateDataKey',
      ],
      ListSubscriptions: ['dynamodb:GetItem', 'dynamodb:Query'],
      DeleteAllSubscriptions: ['dynamodb:Query', 'dynamodb:UpdateItem', 'sqs:SendMessage'],
      RemoveRetiredSubscriptions: [
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ],
      GetSubscription: ['dynamodb:BatchGetItem'],
      DeleteSubscription: [
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      ListDeliveries: ['dynamodb:BatchGetItem', 'dynamodb:Query'],
      ListDeadLetters: ['dynamodb:BatchGetItem', 'dynamodb:Query'],
      RedriveDeadLetters: [
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'sqs:SendMessage',
      ],
      GetCurrentState: ['dynamodb:GetItem'],
      ListPublishers: ['dynamodb:Query'],
      Health: ['dynamodb:GetItem'],
      CreatePublisher: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      GetPublisher: ['dynamodb:GetItem'],
      DeletePublisher: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      PublishEvent: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'sqs:SendMessage'],
      // Fan-out delivers a small batch's notifications itself: what deliver may do (docs/delivery.md).
      FanOut: SENDER_ACTIONS,
      Deliver: SENDER_ACTIONS,
      EmitGauges: ['dynamodb:Query'],
      ListSigningKeys: ['dynamodb:Query'],
      RotateWebhookKeys: ['dynamodb:PutItem', 'dynamodb:Query', 'kms:Decrypt', 'kms:GenerateDataKey'],
      NotFound: [],
      OpenApi: [],
    };
    for (const [name, actions] of Object.entries(expected)) {
      const role = iam.template.Resources[`${name}IamRoleLambdaExecution`];
      expect(role, name).toBeDefined();
      const statements = (
        (role?.Properties.Policies ?? []) as {
          PolicyDocument: { Statement: { Action: string[]; Resource: unknown[] }[] };
        }[]
      ).flatMap((policy) => policy.PolicyDocument.Statement);
      const granted = statements
        .flatMap((s) => s.Action)
        .filter((action) => !action.startsWith('logs:') && !action.startsWith('xray:'));
      expect([...new Set(granted)].sort(), name).toEqual(actions);
      // X-Ray's two actions take no resource; they are the only ones granted on "*".
      const xray = statements.filter((s) => s.Action.some((action) => action.startsWith('xray:')));
      expect(xray, name).toEqual([
        { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
      ]);
      for (const statement of statements.filter((s) => !xray.includes(s))) {
        expect(
          statement.Action.some((action) => action.includes('*')),
          name,
        ).toBe(false);
        for (const resource of statement.Resource) {
          const text = JSON.stringify(resource);
          if (statement.Action.every((action) => action.startsWith('logs:'))) {
            expect(text, name).toContain('/aws/lambda/ocloud-notifications-prod');
          } else {
            expect(text, name).toMatch(
              /NotificationsTable|FanOutQueue|DeliveryQueue|DeadLetterQueue|CleanupQueue|SigningKey|EndpointTlsSecret/,
            );
          }
        }
      }
    }
  });

  it('deploys the table from the shared schema with recovery, encryption, deletion protection and TTL', () => {
    const table = iam.template.Resources.NotificationsTable;
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.Properties).toMatchObject({
      TableName: 'ocloud-notifications-prod',
      BillingMode: tableSchema.BillingMode,
      KeySchema: tableSchema.KeySchema,
      AttributeDefinitions: tableSchema.AttributeDefinitions,
      GlobalSecondaryIndexes: tableSchema.GlobalSecondaryIndexes,
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });

  it("expires a subscription's dead letters with the table's TTL, 14 days after they were given up on", () => {
    const deadLetteredAt = '2026-11-24T12:00:00.000Z';
    const item = deadLetterItem({
      subscriptionId: 'sub-1',
      subscriptionCreatedAt: '2026-11-01T00:00:00.000Z',
      resourceAddress: '/c/s/n/sync/ptp-status/lock-state',
      publisherId: 'pub-1',
      event: validateEvent(lockStateEvent({ node: '/c/s/n' })).event,
      acceptedAt: deadLetteredAt,
      reason: 'it answered HTTP 400, which is not retried',
      attempts: 1,
      deadLetteredAt,
    });
    const ttl = iam.template.Resources.NotificationsTable?.Properties.TimeToLiveSpecification as {
      AttributeName: string;
    };
    const fourteenDays = 14 * 24 * 3600;
    expect(item[ttl.AttributeName]).toBe(Date.parse(deadLetteredAt) / 1000 + fourteenDays);
    // As long as the deployed dead-letter queue keeps the same letter.
    expect(iam.template.Resources.DeadLetterQueue?.Properties.MessageRetentionPeriod).toBe(fourteenDays);
  });

  it('keeps signing secrets under a retained KMS key with rotation, named to the functions that sign', () => {
    const key = iam.template.Resources.SigningKey;
    expect(key?.Type).toBe('AWS::KMS::Key');
    expect(key?.DeletionPolicy).toBe('Retain');
    expect(key?.Properties.EnableKeyRotation).toBe(true);
    for (const [name, fn] of byType(iam.template, 'AWS::Lambda::Function')) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.SIGNING_KEY_SOURCE, name).toBe('kms');
      expect(variables.SIGNING_KMS_KEY_ID, name).toEqual({ Ref: 'SigningKey' });
    }
  });

  it('has the delivery queues with a dead-letter queue behind them', () => {
    const { FanOutQueue, DeliveryQueue, DeadLetterQueue } = iam.template.Resources;
    const deadLetterArn = { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] };
    expect(FanOutQueue?.Properties.RedrivePolicy).toMatchObject({ deadLetterTargetArn: deadLetterArn });
    expect(DeliveryQueue?.Properties.RedrivePolicy).toMatchObject({ deadLetterTargetArn: deadLetterArn });
    expect(DeliveryQueue?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * 30);
    expect(DeadLetterQueue?.Properties.MessageRetentionPeriod).toBe(1_209_600);
    // One source (lib/queue/queues.json) for SQS and for the local queue of npm start and the tests.
    const resources = {
      'fan-out': FanOutQueue,
      delivery: DeliveryQueue,
      cleanup: iam.template.Resources.CleanupQueue,
    };
    for (const [name, resource] of Object.entries(resources)) {
      const declared = queues[name as keyof typeof resources];
      const played = DEFAULT_CONSUMERS.find((consumer) => consumer.queue === name);
      expect(resource?.Properties, name).toMatchObject({
        VisibilityTimeout: declared.visibilityTimeoutSeconds,
        MessageRetentionPeriod: declared.messageRetentionSeconds,
        RedrivePolicy: { maxReceiveCount: declared.maxReceiveCount },
      });
      expect(played, name).toMatchObject({
        visibilityMs: declared.visibilityTimeoutSeconds * 1000,
        maxReceiveCount: declared.maxReceiveCount,
      });
    }
    expect(queues.delivery.maxReceiveCount).toBe(50);
    const mappings = byType(iam.template, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    // Batches of 10 with no window (latency); fan-out with warm pollers (every event is a message
    // there), delivery (packed) in standard mode unless deliverMinimumPollers keeps some warm.
    const mapping = (fn: string, ProvisionedPollerConfig: unknown) =>
      expect.objectContaining({
        FunctionName: { 'Fn::GetAtt': [`${fn}LambdaFunction`, 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: 0,
        ProvisionedPollerConfig,
      });
    // Standard mode (no ProvisionedPollerConfig) when the parameter is 0.
    const pollers = (condition: string, MinimumPollers: number, MaximumPollers: number) => ({
      'Fn::If': [condition, { MinimumPollers, MaximumPollers }, { Ref: 'AWS::NoValue' }],
    });
    expect(mappings).toEqual(
      expect.arrayContaining([
        mapping('Deliver', pollers('DeliverPollersKeptWarm', 0, 200)),
        mapping('FanOut', pollers('FanOutPollersKeptWarm', 2, 50)),
      ]),
    );
    const { Conditions } = iam.template as Template & { Conditions?: Record<string, unknown> };
    const keptWarm = (minimum: string) => ({
      'Fn::Not': [{ 'Fn::Equals': [`${minimum} pollers`, '0 pollers'] }],
    });
    expect(Conditions).toMatchObject({
      DeliverPollersKeptWarm: keptWarm('0'),
      FanOutPollersKeptWarm: keptWarm('2'),
    });
  });

  it("gives delete-all's clean-up a queue of its own with a dead-letter queue, and the cursor key to the list functions only", () => {
    const { CleanupQueue, CleanupDeadLetterQueue, CursorSecret } = iam.template.Resources;
    expect(CleanupQueue?.Properties.RedrivePolicy).toMatchObject({
      deadLetterTargetArn: { 'Fn::GetAtt': ['CleanupDeadLetterQueue', 'Arn'] },
    });
    expect(CleanupDeadLetterQueue?.Type).toBe('AWS::SQS::Queue');
    expect(CursorSecret?.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
    const withKey = byType(iam.template, 'AWS::Lambda::Function')
      .filter(
        ([, fn]) =>
          (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.CURSOR_SECRET !==
          undefined,
      )
      .map(([name]) => name)
      .sort();
    expect(withKey).toEqual([
      'ListDeadLettersLambdaFunction',
      'ListDeliveriesLambdaFunction',
      'ListPublishersLambdaFunction',
      'ListSubscriptionsLambdaFunction',
    ]);
  });

  it('grants the TLS client secret to the three functions that send to consumers only, and deliver and fan-out only that secret and the signing key', () => {
    const readers = (template: Template) =>
      byType(template, 'AWS::IAM::Role').flatMap(([name, role]) =>
        (
          (role.Properties.Policies ?? []) as {
            PolicyDocument: { Statement: { Action: string[]; Resource: unknown[] }[] };
          }[]
        )
          .flatMap((policy) => policy.PolicyDocument.Statement)
          .filter((statement) => statement.Action.includes('secretsmanager:GetSecretValue'))
          .map((statement) => ({ name, resource: JSON.stringify(statement.Resource) })),
      );
    const granted = readers(jwt.template);
    expect(granted.map(({ name }) => name).sort()).toEqual([
      'CreateSubscriptionIamRoleLambdaExecution',
      'DeliverIamRoleLambdaExecution',
      'FanOutIamRoleLambdaExecution',
    ]);
    for (const { resource } of granted) {
      expect(resource).toContain(TLS_SECRET_ARN);
      expect(resource).toContain('HasEndpointTlsSecret');
    }
    // Without the parameter, a name no secret has: nothing can be read.
    for (const { resource } of readers(iam.template)) expect(resource).toContain('no-endpoint-tls-secret');
    for (const sender of ['Deliver', 'FanOut']) {
      const statements = (
        (jwt.template.Resources[`${sender}IamRoleLambdaExecution`]?.Properties.Policies ?? []) as {
          PolicyDocument: { Statement: { Action: string[]; Resource: unknown[] }[] };
        }[]
      ).flatMap((policy) => policy.PolicyDocument.Statement);
      const kms = statements.filter((statement) =>
        statement.Action.some((action) => action.startsWith('kms:')),
      );
      expect(kms, sender).toEqual([
        { Effect: 'Allow', Action: ['kms:Decrypt'], Resource: [{ 'Fn::GetAtt': ['SigningKey', 'Arn'] }] },
      ]);
    }
    const withSecret = byType(jwt.template, 'AWS::Lambda::Function')
      .filter(
        ([, fn]) =>
          (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
            .ENDPOINT_TLS_SECRET === TLS_SECRET_ARN,
      )
      .map(([name]) => name)
      .sort();
    expect(withSecret).toEqual([
      'CreateSubscriptionLambdaFunction',
      'DeliverLambdaFunction',
      'FanOutLambdaFunction',
    ]);
  });

  it('alarms on the 5xx rate, throttling, the failed-attempt rate, the oldest delivery and anything dead-lettered (notifications or clean-up jobs), notifying the alarm topic', () => {
    const alarms = Object.fromEntries(
      byType(iam.template, 'AWS::CloudWatch::Alarm').map(
        ([, alarm]) => [String(alarm.Properties.AlarmName), alarm.Properties] as const,
      ),
    );
    expect(Object.keys(alarms).sort()).toEqual([
      'ocloud-notifications-prod-5xx-rate',
      'ocloud-notifications-prod-cleanup-dead-letters',
      'ocloud-notifications-prod-dead-letters',
      'ocloud-notifications-prod-failed-attempt-rate',
      'ocloud-notifications-prod-oldest-delivery',
      'ocloud-notifications-prod-suspended-endpoints',
      'ocloud-notifications-prod-throttling',
    ]);
    for (const alarm of Object.values(alarms)) {
      expect(alarm.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
      expect(String(alarm.AlarmDescription).length).toBeGreaterThan(20);
    }
    const text = JSON.stringify(alarms);
    expect(text).toContain('"5xx"');
    expect(text).toContain('WriteThrottleEvents');
    // The failed-attempt rate reads the metrics the deliver function prints, with their dimensions.
    const rate = alarms['ocloud-notifications-prod-failed-attempt-rate'] as { Metrics: MetricQuery[] };
    const stats = rate.Metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
    expect(stats).toEqual(
      ['NotificationDeliveryFailures', 'NotificationsDelivered'].map((MetricName) => ({
        Namespace: 'OCloudNotifications',
        MetricName,
        Dimensions: [
          { Name: 'Service', Value: 'ocloud-notifications' },
          { Name: 'Stage', Value: 'prod' },
        ],
      })),
    );
    // The breaker's: any suspension, from the metric the deliver function prints.
    expect(alarms['ocloud-notifications-prod-suspended-endpoints']).toMatchObject({
      Namespace: 'OCloudNotifications',
      MetricName: 'EndpointsSuspended',
      Dimensions: [
        { Name: 'Service', Value: 'ocloud-notifications' },
        { Name: 'Stage', Value: 'prod' },
      ],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(alarms['ocloud-notifications-prod-oldest-delivery']).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['DeliveryQueue', 'QueueName'] } }],
      Threshold: 300,
    });
    for (const [name, queue] of [
      ['dead-letters', 'DeadLetterQueue'],
      ['cleanup-dead-letters', 'CleanupDeadLetterQueue'],
    ]) {
      expect(alarms[`ocloud-notifications-prod-${name}`]).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
  });

  it('shows on its dashboard exactly the metrics the handlers print, with the same dimensions', {
    timeout: 90_000,
  }, async () => {
    const printed = await printedMetrics();
    const dashboard = dashboardMetrics(iam.template);
    expect([...dashboard.keys()].sort()).toEqual([...printed.keys()].sort());
    for (const [name, dimensions] of dashboard) {
      expect(dimensions, name).toEqual({ Service: 'ocloud-notifications', Stage: 'prod' });
      expect(Object.keys(printed.get(name) ?? {}), name).toEqual(['Service', 'Stage']);
      expect(printed.get(name)?.Service, name).toBe('ocloud-notifications');
    }
  });

  it('prints, from the packaged gauges function in the Lambda environment, valid EMF records of exactly the metrics its dashboard widgets and the alarms read', async () => {
    for (const [name, fn] of byType(iam.template, 'AWS::Lambda::Function')) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.AWS_EMF_ENVIRONMENT, name).toBe('Lambda');
    }
    const lines = await runPackagedGauges(iam);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(emfProblems(line), line).toEqual([]);
    const records = lines.map((line) => JSON.parse(line) as EmfRecord);
    // aws-embedded-metrics' Lambda environment adds the function's properties to each record.
    for (const record of records) {
      expect(record).toMatchObject({
        executionEnvironment: `AWS_Lambda_${String(iam.template.Resources.EmitGaugesLambdaFunction?.Properties.Runtime)}`,
        logStreamId: '2026/11/24/[$LATEST]package-test',
        RequestId: 'package-test',
      });
    }
    const printed = records.flatMap((record) =>
      record._aws.CloudWatchMetrics.flatMap((directive) =>
        directive.Metrics.map((metric) => ({
          namespace: directive.Namespace,
          name: metric.Name,
          unit: metric.Unit,
          dimensions: Object.fromEntries(directive.Dimensions.flat().map((d) => [d, record[d]])),
        })),
      ),
    );
    expect(printed.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      ['ActivePublishers', 'ActiveSubscriptions'].map((name) => ({
        namespace: 'OCloudNotifications',
        name,
        unit: 'Count',
        dimensions: { Service: 'ocloud-notifications', Stage: 'prod' },
      })),
    );
    const dashboard = dashboardMetrics(iam.template);
    for (const { name, dimensions } of printed) expect(dashboard.get(name), name).toEqual(dimensions);
  });

  it("shows every alarm of the stack in its dashboard's alarm widget", () => {
    const dashboard = iam.template.Resources.Dashboard;
    if (!dashboard) throw new Error('the template has no Dashboard');
    const body = (dashboard.Properties.DashboardBody as { 'Fn::Sub': string })['Fn::Sub'];
    const widgets = (JSON.parse(body) as { widgets: { type: string; properties: { alarms?: string[] } }[] })
      .widgets;
    const shown = widgets
      .flatMap((widget) => (widget.type === 'alarm' ? (widget.properties.alarms ?? []) : []))
      .map((arn) => arn.split(':alarm:')[1]);
    const defined = byType(iam.template, 'AWS::CloudWatch::Alarm').map(([, alarm]) =>
      String(alarm.Properties.AlarmName),
    );
    expect(shown.sort()).toEqual(defined.sort());
  });

  it('isolates the functions: delivery keeps a reservation, publishing and the lists are capped, each route throttled (docs/deploy.md)', () => {
    const { Resources, Conditions } = iam.template;
    const reserved = (name: string) => Resources[name]?.Properties.ReservedConcurrentExecutions;
    expect(reserved('DeliverLambdaFunction')).toEqual({
      'Fn::If': ['DeliverReserved', 200, { Ref: 'AWS::NoValue' }],
    });
    expect(reserved('PublishEventLambdaFunction')).toEqual({
      'Fn::If': ['PublishReserved', 100, { Ref: 'AWS::NoValue' }],
    });
    for (const list of ['ListSubscriptions', 'ListPublishers', 'ListDeliveries', 'ListDeadLetters']) {
      expect(reserved(`${list}LambdaFunction`), list).toEqual({
        'Fn::If': ['ListReserved', 10, { Ref: 'AWS::NoValue' }],
      });
    }
    // Every reservation is in force by default (a parameter of 0 removes it).
    for (const condition of ['DeliverReserved', 'PublishReserved', 'ListReserved']) {
      const not = Conditions?.[condition] as { 'Fn::Not': [{ 'Fn::Equals': [string, string] }] } | undefined;
      const [left, right] = not?.['Fn::Not'][0]['Fn::Equals'] ?? ['missing', 'missing'];
      expect(left, condition).not.toBe(right);
    }
    // Together they leave AWS's least unreserved (100) of a default account's 1,000.
    const total = byType(iam.template, 'AWS::Lambda::Function')
      .map(
        ([, fn]) => fn.Properties.ReservedConcurrentExecutions as { 'Fn::If'?: [string, number] } | undefined,
      )
      .reduce((sum, value) => sum + (value?.['Fn::If']?.[1] ?? 0), 0);
    expect(total).toBe(340);
    // In standard mode the delivery queue's mapping stops at the reservation, so SQS never has
    // deliver's batches throttled (each throttle a receive towards the redrive policy).
    expect(Resources.DeliverEventSourceMappingSQSDeliveryQueue?.Properties.ScalingConfig).toEqual({
      'Fn::If': ['DeliverScaledToItsReservation', { MaximumConcurrency: 200 }, { Ref: 'AWS::NoValue' }],
    });
    const stage = Resources.HttpApiStage?.Properties as {
      DefaultRouteSettings: Record<string, unknown>;
      RouteSettings: Record<string, Record<string, unknown>>;
    };
    expect(stage.DefaultRouteSettings).toEqual({
      DetailedMetricsEnabled: true,
      ThrottlingRateLimit: 2000,
      ThrottlingBurstLimit: 1000,
    });
    const base = '/api/ocloudNotifications/v2';
    const list = { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 };
    expect(stage.RouteSettings).toEqual({
      [`POST ${base}/publishers/{publisherId}/events`]: {
        ThrottlingRateLimit: 1000,
        ThrottlingBurstLimit: 4000,
      },
      [`GET ${base}/subscriptions`]: list,
      [`GET ${base}/publishers`]: list,
      [`GET ${base}/subscriptions/{subscriptionId}/deliveries`]: list,
      [`GET ${base}/subscriptions/{subscriptionId}/dead-letters`]: list,
    });
    // Each throttled route is a route of the API (a misspelt key would throttle nothing).
    const declared = Object.keys(routes(iam.template));
    for (const key of Object.keys(stage.RouteSettings)) expect(declared, key).toContain(key);
  });

  it('traces every function with X-Ray: active tracing, and the packaged handler records its subsegment, its AWS calls and the trace id', async () => {
    const functions = byType(iam.template, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(24);
    for (const [name, fn] of functions) expect(fn.Properties.TracingConfig, name).toEqual({ Mode: 'Active' });
    // HTTP APIs cannot trace; nothing in the stack claims to.
    expect(JSON.stringify(byType(iam.template, 'AWS::ApiGatewayV2::Stage'))).not.toContain('Tracing');

    const traceId = `${Math.floor(Date.now() / 1000).toString(16)}${'a1b2c3d4e5f6'.repeat(2)}`;
    const segments = await runPackagedTraced(iam, 'Health', xrayTraceIdOf(traceId));
    const handler = segments.find((segment) => segment.name === '## functions/http/health.handler');
    expect(handler, JSON.stringify(segments)).toMatchObject({
      trace_id: xrayTraceIdOf(traceId),
      annotations: { traceId, ColdStart: true, Service: 'ocloud-notifications' },
    });
    // The store's client is captured: its GetItem is a subsegment of its own.
    expect(segments.some((segment) => segment.name === 'DynamoDB')).toBe(true);
  });

  it('keeps logs for the configured retention', () => {
    const groups = byType(iam.template, 'AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThanOrEqual(15);
    for (const [name, group] of groups) expect(group.Properties.RetentionInDays, name).toBe(30);
  });

  it('ships each function as one ES module that the Node runtime loads outside the project, and health answers', async () => {
    const { contents, loaded, health } = await loadPackagedHandlers(iam);
    const names = byType(iam.template, 'AWS::Lambda::Function').map(([r]) =>
      r.replace(/LambdaFunction$/, ''),
    );
    expect(Object.keys(contents).sort()).toEqual(names.sort());
    for (const name of names) {
      expect(contents[name], name).toHaveLength(1);
      expect(contents[name]?.[0], name).toMatch(/^functions\/(http|queue|schedule)\/[\w-]+\.mjs$/);
      expect(loaded[name], name).toBe('function');
    }
    expect(health).toBe(200);
  });

  it(`keeps every function's bundle under ${BUNDLE_BUDGET_BYTES / 1024} KiB zipped`, async () => {
    const functions = byType(iam.template, 'AWS::Lambda::Function');
    for (const [name, fn] of functions) {
      const key = String((fn.Properties.Code as { S3Key: unknown }).S3Key);
      const zip = join(iam.dir, key.split('/').pop() ?? '');
      const { size } = await stat(zip);
      expect(size, name).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    }
  });
});

/**
 * Loads every packaged handler in a fresh Node process, as the nodejs24.x runtime does (an ES
 * module, by import(), from a directory with no node_modules), and invokes GET /health against
 * DynamoDB Local: each module's name, whether it exports a handler, and the health status.
 */
const RUNTIME_SCRIPT = `
const files = JSON.parse(process.env.HANDLER_FILES);
const loaded = {};
for (const [name, file] of Object.entries(files)) {
  loaded[name] = typeof (await import(file)).handler;
}
const health = await (await import(files.health)).handler(JSON.parse(process.env.HEALTH_EVENT), {
  awsRequestId: 'package-test', getRemainingTimeInMillis: () => 10000,
});
process.stdout.write(JSON.stringify({ loaded, health: health.statusCode }));
`;

async function loadPackagedHandlers(packaged: { dir: string; template: Template }) {
  const outside = await mkdtemp(join(tmpdir(), 'ocloud-artefacts-'));
  try {
    const files: Record<string, string> = {};
    const contents: Record<string, string[]> = {};
    for (const [resource, fn] of byType(packaged.template, 'AWS::Lambda::Function')) {
      const name = resource.replace(/LambdaFunction$/, '');
      const key = String((fn.Properties.Code as { S3Key: unknown }).S3Key);
      const into = join(outside, name);
      await run('unzip', ['-q', join(packaged.dir, key.split('/').pop() ?? ''), '-d', into]);
      const { stdout } = await run('find', [into, '-type', 'f', '-printf', '%P\n']);
      contents[name] = stdout.trim().split('\n');
      const handler = String(fn.Properties.Handler);
      files[name] = join(into, `${handler.slice(0, handler.lastIndexOf('.'))}.mjs`);
    }
    files.health = files.Health ?? '';
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', RUNTIME_SCRIPT], {
      cwd: outside,
      env: {
        PATH: process.env.PATH,
        ...Object.fromEntries(
          Object.entries(process.env).filter(([k]) => /^(AWS_|TABLE_NAME|STAGE)/.test(k)),
        ),
        HANDLER_FILES: JSON.stringify(files),
        HEALTH_EVENT: JSON.stringify(httpApiEvent({ method: 'GET', path: '/health' })),
      },
      timeout: 60_000,
    });
    return { contents, ...(JSON.parse(stdout) as { loaded: Record<string, string>; health: number }) };
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
}

/**
 * Runs one packaged function once as Lambda runs it: unzipped into a fresh folder, a fresh Node
 * process, its environment from the template plus what the Lambda runtime sets (and `runtime`'s
 * additions), against DynamoDB Local and the test's table instead of the stack's. Returns stdout.
 */
async function runPackaged(
  packaged: { dir: string; template: Template },
  name: string,
  event: unknown,
  runtime: (folder: string, handler: string) => Record<string, string>,
): Promise<string> {
  const fn = packaged.template.Resources[`${name}LambdaFunction`];
  if (!fn) throw new Error(`the template has no ${name} function`);
  const outside = await mkdtemp(join(tmpdir(), 'ocloud-packaged-'));
  try {
    const key = String((fn.Properties.Code as { S3Key: unknown }).S3Key);
    await run('unzip', ['-q', join(packaged.dir, key.split('/').pop() ?? ''), '-d', outside]);
    const handler = String(fn.Properties.Handler);
    const file = join(outside, `${handler.slice(0, handler.lastIndexOf('.'))}.mjs`);
    const deployed = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const script = `const { handler } = await import(${JSON.stringify(file)});
await handler(JSON.parse(process.env.EVENT), { awsRequestId: 'package-test', getRemainingTimeInMillis: () => 10000 });`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: outside,
      env: {
        PATH: process.env.PATH,
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(AWS_|TABLE_NAME)/.test(k))),
        ...Object.fromEntries(Object.entries(deployed).filter(([, v]) => typeof v === 'string')),
        TABLE_NAME: process.env.TABLE_NAME,
        EVENT: JSON.stringify(event),
        // What the Lambda runtime sets.
        AWS_LAMBDA_FUNCTION_NAME: `ocloud-notifications-prod-${name.charAt(0).toLowerCase()}${name.slice(1)}`,
        AWS_EXECUTION_ENV: `AWS_Lambda_${String(fn.Properties.Runtime)}`,
        ...runtime(outside, handler),
      },
      timeout: 60_000,
    });
    return stdout;
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
}

/** The packaged gauges function, run once: the lines it printed that carry embedded metrics. */
async function runPackagedGauges(packaged: { dir: string; template: Template }): Promise<string[]> {
  const stdout = await runPackaged(packaged, 'EmitGauges', {}, () => ({
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/11/24/[$LATEST]package-test',
  }));
  return stdout.split('\n').filter((line) => line.includes('"_aws"'));
}

/**
 * Runs one packaged HTTP function (`GET /health`'s event) as Lambda runs it with active tracing: the
 * invocation's `_X_AMZN_TRACE_ID`, and an X-Ray daemon address where this test listens. Returns the
 * (sub)segment documents the function sent.
 */
async function runPackagedTraced(
  packaged: { dir: string; template: Template },
  name: string,
  xrayTraceId: string,
): Promise<Array<{ name: string; trace_id?: string; annotations?: Record<string, unknown> }>> {
  const daemon = dgram.createSocket('udp4');
  const documents: string[] = [];
  daemon.on('message', (message) => documents.push(message.toString().split('\n')[1] ?? ''));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  try {
    await runPackaged(
      packaged,
      name,
      httpApiEvent({ method: 'GET', path: '/health' }),
      (folder, handler) => ({
        AWS_EMF_ENVIRONMENT: 'Local',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        LAMBDA_TASK_ROOT: folder,
        _HANDLER: handler,
        _X_AMZN_TRACE_ID: `Root=${xrayTraceId};Parent=53995c3f42cd8ad8;Sampled=1`,
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
      }),
    );
    await vi.waitFor(() => expect(documents.join()).toContain('## functions/'), { timeout: 5000 });
    return documents.map((document) => JSON.parse(document));
  } finally {
    daemon.close();
  }
}

/** Metric name → dimension values, from the dashboard's OCloudNotifications widgets. */
function dashboardMetrics(template: Template): Map<string, Record<string, string>> {
  const dashboard = template.Resources.Dashboard;
  if (!dashboard) throw new Error('the template has no Dashboard');
  const body = (dashboard.Properties.DashboardBody as { 'Fn::Sub': string })['Fn::Sub'];
  const widgets = (JSON.parse(body) as { widgets: { properties: { metrics?: unknown[][] } }[] }).widgets;
  const found = new Map<string, Record<string, string>>();
  for (const widget of widgets) {
    for (const metric of widget.properties.metrics ?? []) {
      if (metric[0] !== 'OCloudNotifications') continue;
      const [, name, ...rest] = metric as string[];
      const pairs = rest.filter((part) => typeof part === 'string');
      const dimensions: Record<string, string> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) dimensions[pairs[i] as string] = pairs[i + 1] as string;
      found.set(name as string, dimensions);
    }
  }
  return found;
}

/**
 * Metric name → dimension values, from the EMF lines the handlers print when they run: a publish
 * delivered to one consumer that accepts it and one that refuses it for good, and the gauges.
 */
async function printedMetrics(): Promise<Map<string, Record<string, unknown>>> {
  const node = freshNode();
  const accepting = await startConsumer([{ status: 204 }]);
  const refusing = await startConsumer([{ status: 400 }]);
  const records: EmfRecord[] = [];
  try {
    const publisherId = await registerPublisher(`${node}${LOCK_STATE}`);
    for (const consumer of [accepting, refusing]) {
      const subscribed = await api.createSubscription({ ResourceAddress: node, EndpointUri: consumer.url });
      expect(subscribed.status).toBe(201);
    }
    records.push(
      ...(await captureEmf(async () => {
        await api.publish(publisherId, lockStateEvent({ node }));
        await Promise.all([accepting.waitFor(1), refusing.waitFor(1)]);
        await waitForQueueIdle();
      })),
      ...(await captureEmf(() => emitGauges({}, lambdaContext()))),
      // The breaker (a suspension time of 1 s in this file): the refusing consumer's endpoint has
      // failed every attempt for over a second at its next failure, and is suspended.
      ...(await captureEmf(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await api.publish(publisherId, lockStateEvent({ node }));
        await Promise.all([accepting.waitFor(2), refusing.waitFor(2)]);
        await waitForQueueIdle();
      })),
      // The refusals of issue 41: a producer without a grant, another principal's publish.
      ...(await captureEmf(async () => {
        const stranger = { headers: { 'x-producer-id': 'stranger' } };
        expect((await api.createPublisher({ ResourceAddress: `${node}/other` }, stranger)).status).toBe(403);
        expect((await api.publish(publisherId, lockStateEvent({ node }), stranger)).status).toBe(403);
        // A producer over its quota of publishers (2 in this file).
        const counted = { headers: { 'x-producer-id': 'counted' } };
        await producerGrants().addGrant('local:counted', node);
        for (const i of [0, 1]) {
          const created = await api.createPublisher({ ResourceAddress: `${node}/counted-${i}` }, counted);
          expect(created.status).toBe(201);
        }
        expect((await api.createPublisher({ ResourceAddress: `${node}/counted-2` }, counted)).status).toBe(
          403,
        );
        // A publisher over its rate (bursts of 3 in this file).
        let status = 0;
        for (let i = 0; i < 20 && status !== 429; i++) {
          status = (await api.publish(publisherId, lockStateEvent({ node }))).status;
        }
        expect(status).toBe(429);
      })),
    );
  } finally {
    await Promise.all([accepting.close(), refusing.close()]);
  }
  const found = new Map<string, Record<string, unknown>>();
  for (const record of records) {
    for (const directive of record._aws.CloudWatchMetrics) {
      expect(directive.Namespace).toBe('OCloudNotifications');
      for (const metric of directive.Metrics) {
        found.set(metric.Name, Object.fromEntries(directive.Dimensions.flat().map((d) => [d, record[d]])));
      }
    }
  }
  return found;
}
