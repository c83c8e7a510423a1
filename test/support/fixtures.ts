import { randomUUID } from 'node:crypto';

/** A fresh cluster name per test, so tests sharing the table never see each other's data. */
export function uniqueCluster(): string {
  return `cluster-${randomUUID().slice(0, 8)}`;
}

export function lockStateEvent(options: {
  node: string;
  id?: string;
  time?: string;
  value?: 'LOCKED' | 'HOLDOVER' | 'FREERUN';
}) {
  return {
    id: options.id ?? randomUUID(),
    specversion: '1.0',
    source: '/sync/ptp-status/lock-state',
    type: 'event.sync.ptp-status.ptp-state-change',
    time: options.time ?? new Date().toISOString(),
    data: {
      version: '1.0',
      values: [
        {
          data_type: 'notification',
          ResourceAddress: `${options.node}/sync/ptp-status/lock-state`,
          value_type: 'enumeration',
          value: options.value ?? 'HOLDOVER',
        },
      ],
    },
  };
}
