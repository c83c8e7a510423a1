// CloudWatch alarms of the stack, referenced from serverless.yml. Each notifies the AlarmTopic.
const actions = { AlarmActions: [{ Ref: 'AlarmTopic' }], OKActions: [{ Ref: 'AlarmTopic' }] };

/** @typedef {{ Name: string, Value: unknown }} Dimension */
/** @typedef {(name: string) => Promise<string>} ResolveVariable */

/**
 * @param {string} id
 * @param {string} namespace
 * @param {string} name
 * @param {Dimension[]} dimensions
 */
const metric = (id, namespace, name, dimensions, stat = 'Sum', period = 60) => ({
  Id: id,
  ReturnData: false,
  MetricStat: {
    Metric: { Namespace: namespace, MetricName: name, Dimensions: dimensions },
    Period: period,
    Stat: stat,
  },
});

/**
 * Fires as soon as a queue that only keeps what was given up on holds a message.
 * @param {string} queue the queue's logical id in serverless.yml
 * @param {string} name
 * @param {string} description
 */
const anyMessageIn = (queue, name, description) => ({
  Type: 'AWS::CloudWatch::Alarm',
  Properties: {
    AlarmName: name,
    AlarmDescription: description,
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
    Statistic: 'Maximum',
    Period: 60,
    EvaluationPeriods: 1,
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
    TreatMissingData: 'notBreaching',
    ...actions,
  },
});

/** @param {{ resolveVariable: ResolveVariable }} options */
module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const api = [{ Name: 'ApiId', Value: { Ref: 'HttpApi' } }];
  const table = [{ Name: 'TableName', Value: { Ref: 'NotificationsTable' } }];
  const fn = (/** @type {string} */ name) => [{ Name: 'FunctionName', Value: `${service}-${stage}-${name}` }];
  const criticalFunctions = ['publishEvent', 'createSubscription', 'fanOut', 'deliver'];
  // The service's own metrics (lib/metrics.ts): namespace OCloudNotifications, Service and Stage.
  const own = [
    { Name: 'Service', Value: service },
    { Name: 'Stage', Value: stage },
  ];

  return {
    serverErrorRate: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-5xx-rate`,
        AlarmDescription:
          'More than 1% of API requests answered 5xx in 2 of the last 3 minutes: the store or a function is failing.',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 1,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
        Metrics: [
          metric('errors', 'AWS/ApiGateway', '5xx', api),
          metric('requests', 'AWS/ApiGateway', 'Count', api),
          {
            Id: 'rate',
            Label: '5xx % of requests',
            Expression: 'IF(requests > 0, 100 * errors / requests, 0)',
            ReturnData: true,
          },
        ],
        ...actions,
      },
    },
    throttling: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-throttling`,
        AlarmDescription:
          'DynamoDB or a function on the publish/subscribe/delivery path was throttled: requests get 503 and deliveries slow down.',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        Metrics: [
          metric('tableReads', 'AWS/DynamoDB', 'ReadThrottleEvents', table),
          metric('tableWrites', 'AWS/DynamoDB', 'WriteThrottleEvents', table),
          ...criticalFunctions.map((name, i) => metric(`fn${i}`, 'AWS/Lambda', 'Throttles', fn(name))),
          {
            Id: 'throttles',
            Label: 'throttled requests',
            Expression: ['tableReads', 'tableWrites', ...criticalFunctions.map((_, i) => `fn${i}`)]
              .map((id) => `FILL(${id}, 0)`)
              .join(' + '),
            ReturnData: true,
          },
        ],
        ...actions,
      },
    },
    failedAttemptRate: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-failed-attempt-rate`,
        AlarmDescription:
          'More than 10% of delivery attempts failed in 2 of the last 3 five-minute periods (at least 20 attempts): consumers are down or unreachable, or egress is broken. The deliver function logs each failure with its subscription and reason.',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 10,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
        Metrics: [
          metric('failed', 'OCloudNotifications', 'NotificationDeliveryFailures', own, 'Sum', 300),
          metric('delivered', 'OCloudNotifications', 'NotificationsDelivered', own, 'Sum', 300),
          {
            Id: 'rate',
            Label: 'failed % of attempts',
            Expression:
              'IF(FILL(failed, 0) + FILL(delivered, 0) >= 20, 100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(delivered, 0)), 0)',
            ReturnData: true,
          },
        ],
        ...actions,
      },
    },
    oldestDelivery: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-oldest-delivery`,
        AlarmDescription:
          'A notification has waited on the delivery queue for more than 5 minutes, 3 minutes running: one consumer failing (it is retried with back-off for up to the retry window) or delivery falling behind. Seen within about 8 minutes of the first failure, long before the retry window dead-letters it.',
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['DeliveryQueue', 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 3,
        Threshold: 300,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        ...actions,
      },
    },
    suspendedEndpoints: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-suspended-endpoints`,
        AlarmDescription:
          "A consumer endpoint was suspended: every attempt to it failed for the suspension time (endpointSuspendAfterSeconds), and its notifications now go straight to its dead letters until its consumer redrives them (docs/delivery.md). The deliver function's log names the subscription.",
        Namespace: 'OCloudNotifications',
        MetricName: 'EndpointsSuspended',
        Dimensions: own,
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        ...actions,
      },
    },
    deadLetters: anyMessageIn(
      'DeadLetterQueue',
      `${service}-${stage}-dead-letters`,
      'A notification was given up on and is in the dead-letter queue; its message says which subscription, which event and why.',
    ),
    cleanupDeadLetters: anyMessageIn(
      'CleanupDeadLetterQueue',
      `${service}-${stage}-cleanup-dead-letters`,
      "A delete-all clean-up job kept failing and is in the clean-up dead-letter queue: the owner's retired subscriptions stay in the table (invisible, uncounted) until it is redriven to the clean-up queue.",
    ),
  };
};
