import { describe, expect, it } from 'vitest';
import { createLocalConsole } from '../../scripts/status-line';

const emf = (metrics: Record<string, number | number[]>) =>
  JSON.stringify({
    _aws: {
      Timestamp: 1,
      CloudWatchMetrics: [
        {
          Dimensions: [['Service', 'Stage']],
          Metrics: Object.keys(metrics).map((Name) => ({ Name, Unit: 'Count' })),
          Namespace: 'OCloudNotifications',
        },
      ],
    },
    Service: 'ocloud-notifications',
    Stage: 'local',
    ...metrics,
  });

/**
 * What serverless offline and the handlers print for one publish, one delivery and one failure,
 * and a redriven dead letter dropped.
 */
const session = [
  'Starting Offline at stage local (us-east-1)',
  '   * publishEvent: ocloud-notifications-local-publishEvent',
  '',
  'POST /api/ocloudNotifications/v2/publishers/1/events (λ: publishEvent)',
  '(λ: publishEvent) RequestId: 2a39  Duration: 8.03 ms  Billed Duration: 9 ms',
  '│   POST   | http://127.0.0.1:3000/api/ocloudNotifications/v2/publishers   │',
  emf({ EventsPublished: 1 }),
  emf({ NotificationsDelivered: [1, 1], NotificationDeliveryFailures: 1 }),
  JSON.stringify({ level: 'warn', message: 'delivery attempt failed; retrying' }),
  JSON.stringify({
    level: 'error',
    message: 'unhandled error',
    route: 'POST /api/ocloudNotifications/v2/subscriptions',
  }),
  emf({ ActiveSubscriptions: 3, ActivePublishers: 24 }),
  JSON.stringify({
    level: 'warn',
    message: 'redriven notification dropped',
    notice: 'redriven notification dropped: event /sync/ptp-status/lock-state e1 … since',
  }),
  'java.lang.OutOfMemoryError: something nobody expected',
];

describe("npm start's console", () => {
  it('by default shows errors, notices and the unexpected, counts from the metric records, and hides the chatter', () => {
    const printed: string[] = [];
    const local = createLocalConsole({ print: (text) => printed.push(text) });
    for (const line of session) local.line(line);

    expect(printed).toEqual([
      'error: unhandled error (POST /api/ocloudNotifications/v2/subscriptions)',
      'redriven notification dropped: event /sync/ptp-status/lock-state e1 … since',
      'java.lang.OutOfMemoryError: something nobody expected',
    ]);
    expect(local.status(new Date('2026-11-23T02:40:05Z'))).toBe(
      '[02:40:05] subscriptions 3 · publishers 24 · since start: events published 1 · delivered 2 · failed attempts 1 · dead-lettered 0',
    );
  });

  it('prints a status line only when something changed', () => {
    const local = createLocalConsole({ print: () => undefined });
    expect(local.status()).toContain('subscriptions ? · publishers ?');
    expect(local.status()).toBeUndefined();
    local.line(emf({ NotificationsDeadLettered: 1 }));
    expect(local.status()).toContain('dead-lettered 1');
  });

  it('with LOG_LEVEL=debug shows every line, and still counts', () => {
    const printed: string[] = [];
    const local = createLocalConsole({ debug: true, print: (text) => printed.push(text) });
    for (const line of session) local.line(line);

    expect(printed).toEqual(session);
    expect(local.status()).toContain('events published 1');
  });
});
