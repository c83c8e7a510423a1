import { describe, expect, it } from 'vitest';
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
