// The operators' CloudWatch dashboard, referenced from serverless.yml. The body is a Fn::Sub
// template so that it names this stack's API, queues and region.
const NAMESPACE = 'OCloudNotifications';
// CloudFormation substitutions (Fn::Sub), written as plain strings so JavaScript leaves them alone.
const REGION = '$' + '{AWS::Region}';

/** @param {{ resolveVariable: (name: string) => Promise<string> }} options */
module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const dims = ['Service', service, 'Stage', stage];
  /** @type {(name: string, stat: string, label?: string) => unknown[]} */
  const ours = (name, stat, label) => [NAMESPACE, name, ...dims, { stat, label: label ?? name }];
  /** @type {(metricName: string, stat: string) => string} */
  const perRoute = (metricName, stat) =>
    `SEARCH('{AWS/ApiGateway,ApiId,Route,Stage} MetricName="${metricName}" ApiId="\${HttpApi}"', '${stat}', 60)`;
  /** @type {(name: string, metricName: string, stat: string, label: string) => unknown[]} */
  const queue = (name, metricName, stat, label) => [
    'AWS/SQS',
    metricName,
    'QueueName',
    `\${${name}.QueueName}`,
    { stat, label },
  ];
  /** @type {(x: number, y: number, title: string, metrics: unknown[], extra?: object) => object} */
  const widget = (x, y, title, metrics, extra = {}) => ({
    type: 'metric',
    x,
    y,
    width: 8,
    height: 6,
    properties: { title, region: REGION, period: 60, view: 'timeSeries', metrics, ...extra },
  });

  const body = {
    widgets: [
      widget(0, 0, 'Active subscriptions and publishers', [
        ours('ActiveSubscriptions', 'Maximum'),
        ours('ActivePublishers', 'Maximum'),
      ]),
      widget(8, 0, 'Events published per minute', [ours('EventsPublished', 'Sum')]),
      widget(16, 0, 'Notifications per minute', [
        ours('NotificationsDelivered', 'Sum'),
        ours('NotificationDeliveryFailures', 'Sum', 'NotificationDeliveryFailures (attempts)'),
        ours('NotificationsDeadLettered', 'Sum'),
      ]),
      widget(0, 6, 'Requests per route', [[{ expression: perRoute('Count', 'Sum'), id: 'requests' }]]),
      widget(8, 6, 'Errors per route (4xx, 5xx)', [
        [{ expression: perRoute('4xx', 'Sum'), id: 'clientErrors' }],
        [{ expression: perRoute('5xx', 'Sum'), id: 'serverErrors' }],
      ]),
      widget(16, 6, 'Latency per route (p99, ms)', [
        [{ expression: perRoute('Latency', 'p99'), id: 'latency' }],
      ]),
      widget(0, 12, 'Delivery latency (ms, acceptance to 2xx)', [
        ours('DeliveryLatency', 'p50', 'p50'),
        ours('DeliveryLatency', 'p99', 'p99'),
      ]),
      widget(8, 12, 'Delivery queues', [
        queue('DeliveryQueue', 'ApproximateNumberOfMessagesVisible', 'Maximum', 'deliveries waiting'),
        queue('DeliveryQueue', 'ApproximateAgeOfOldestMessage', 'Maximum', 'oldest delivery (s)'),
        queue('FanOutQueue', 'ApproximateNumberOfMessagesVisible', 'Maximum', 'fan-outs waiting'),
        queue('DeadLetterQueue', 'ApproximateNumberOfMessagesVisible', 'Maximum', 'dead letters'),
      ]),
      // Issue 41's limits: each refusal is also a log line with the principal and the address.
      widget(0, 18, 'Refusals and suspended endpoints per minute (docs/security.md)', [
        ours('ProducerGrantRefusals', 'Sum'),
        ours('PublisherOwnershipRefusals', 'Sum'),
        ours('QuotaRefusals', 'Sum'),
        ours('PublisherRateRefusals', 'Sum'),
        ours('EndpointsSuspended', 'Sum'),
      ]),
      {
        type: 'alarm',
        x: 16,
        y: 12,
        width: 8,
        height: 6,
        properties: {
          title: 'Alarms',
          alarms: [
            '5xx-rate',
            'throttling',
            'failed-attempt-rate',
            'oldest-delivery',
            'dead-letters',
            'cleanup-dead-letters',
            'suspended-endpoints',
          ].map(
            (name) =>
              `arn:aws:cloudwatch:\${AWS::Region}:\${AWS::AccountId}:alarm:${service}-${stage}-${name}`,
          ),
        },
      },
    ],
  };

  return {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: {
      DashboardName: `${service}-${stage}`,
      DashboardBody: { 'Fn::Sub': JSON.stringify(body) },
    },
  };
};
// The local dashboard of `npm start` (scripts/dashboard/) shows this dashboard's widgets of this namespace.
module.exports.NAMESPACE = NAMESPACE;
