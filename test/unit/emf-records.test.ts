import { describe, expect, it, vi } from 'vitest';
import { emfRecords, NAMESPACE } from '../../lib/metrics';

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('emfRecords', () => {
  it('writes one record with the namespace, the Service and Stage dimensions, and each value', () => {
    const recorded = new Map([
      ['EventsPublished', { unit: 'Count' as const, values: [1] }],
      ['DeliveryLatency', { unit: 'Milliseconds' as const, values: [12, 30] }],
    ]);
    expect(parse(emfRecords(recorded, { RequestId: 'r-1' }, 1_700_000_000_000))).toEqual([
      {
        _aws: {
          Timestamp: 1_700_000_000_000,
          CloudWatchMetrics: [
            {
              Dimensions: [['Service', 'Stage']],
              Metrics: [
                { Name: 'EventsPublished', Unit: 'Count' },
                { Name: 'DeliveryLatency', Unit: 'Milliseconds' },
              ],
              Namespace: NAMESPACE,
            },
          ],
        },
        Service: 'ocloud-notifications',
        Stage: 'local',
        RequestId: 'r-1',
        EventsPublished: 1,
        DeliveryLatency: [12, 30],
      },
    ]);
  });

  it('splits a metric with more than 100 values over records, as CloudWatch reads at most 100 from one', () => {
    const values = Array.from({ length: 250 }, (_, i) => i);
    const records = parse(
      emfRecords(new Map([['DeliveryLatency', { unit: 'Milliseconds' as const, values }]]), {}),
    );
    expect(records.map((r) => (r.DeliveryLatency as number[]).length)).toEqual([100, 100, 50]);
    expect(records.flatMap((r) => r.DeliveryLatency as number[])).toEqual(values);
  });

  it('writes nothing when nothing was recorded', () => {
    expect(emfRecords(new Map(), {})).toEqual([]);
  });
});

/**
 * aws-embedded-metrics, the project's metrics package (design card), as the oracle of our records:
 * the same metrics logged through its own logger must serialize to the records `emfRecords()` writes.
 * The library resolves its environment when first imported, so it is imported only once the Local
 * environment (vitest.config.mts `env`) is known to be set: never an EC2 metadata probe.
 * Not compared: more than 100 metric names in one record, which the library splits and we do not;
 * `Metrics` records at most the seven names of CountMetric and DeliveryLatency.
 */
describe('emfRecords against aws-embedded-metrics', () => {
  type Recorded = Map<string, { unit: 'Count' | 'Milliseconds'; values: number[] }>;

  async function libraryRecords(recorded: Recorded, properties: Record<string, string>, timestamp: number) {
    expect(process.env.AWS_EMF_ENVIRONMENT).toBe('Local');
    const { createMetricsLogger, Unit } = await import('aws-embedded-metrics');
    const logger = createMetricsLogger();
    logger.setNamespace(NAMESPACE);
    logger.setDimensions({ Service: 'ocloud-notifications', Stage: 'local' });
    for (const [key, value] of Object.entries(properties)) logger.setProperty(key, value);
    logger.setTimestamp(timestamp);
    for (const [name, { unit, values }] of recorded) {
      for (const value of values)
        logger.putMetric(name, value, unit === 'Count' ? Unit.Count : Unit.Milliseconds);
    }
    // The Local environment's ConsoleSink prints each serialized record with console.log.
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await logger.flush();
      return log.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    } finally {
      log.mockRestore();
    }
  }

  /**
   * The order of metric definitions within a record's `Metrics` array carries no meaning in EMF;
   * the library orders them by values left (a max-heap), ours by first use, so both are sorted by
   * name. Nothing else is normalised: the Timestamp is set to the same instant on both sides, and
   * toEqual ignores the order of an object's keys, which JSON does not define either.
   */
  const normalised = (records: Record<string, unknown>[]) =>
    records.map((record) => {
      const aws = record._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
      return {
        ...record,
        _aws: {
          ...aws,
          CloudWatchMetrics: aws.CloudWatchMetrics.map((directive) => ({
            ...directive,
            Metrics: [...directive.Metrics].sort((a, b) => a.Name.localeCompare(b.Name)),
          })),
        },
      };
    });

  async function expectSameAsLibrary(recorded: Recorded, properties: Record<string, string>) {
    const timestamp = Date.now();
    const ours = parse(emfRecords(recorded, properties, timestamp));
    const theirs = await libraryRecords(recorded, properties, timestamp);
    expect(ours.length).toBeGreaterThan(0);
    expect(normalised(ours)).toEqual(normalised(theirs));
  }

  it('writes what the library writes for single and several values', async () => {
    await expectSameAsLibrary(
      new Map([
        ['EventsPublished', { unit: 'Count' as const, values: [1] }],
        ['NotificationsDelivered', { unit: 'Count' as const, values: [1, 1, 1] }],
        ['DeliveryLatency', { unit: 'Milliseconds' as const, values: [12, 30, 7.5] }],
      ]),
      { RequestId: 'r-1' },
    );
  });

  it('splits more than 100 values over records as the library does', async () => {
    await expectSameAsLibrary(
      new Map([
        ['NotificationsDelivered', { unit: 'Count' as const, values: Array.from({ length: 101 }, () => 1) }],
        [
          'DeliveryLatency',
          { unit: 'Milliseconds' as const, values: Array.from({ length: 250 }, (_, i) => i) },
        ],
        ['NotificationDeliveryFailures', { unit: 'Count' as const, values: [2] }],
      ]),
      { RequestId: 'r-2' },
    );
  });

  it('writes what the library writes with the Lambda properties our records carry', async () => {
    await expectSameAsLibrary(new Map([['ActiveSubscriptions', { unit: 'Count' as const, values: [42] }]]), {
      executionEnvironment: 'AWS_Lambda_nodejs20.x',
      memorySize: '256',
      functionVersion: '$LATEST',
      logStreamId: '2026/11/23/[$LATEST]abc',
      RequestId: 'r-3',
    });
  });
});
