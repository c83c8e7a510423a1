/**
 * The events the agent publishes, built from the service's own catalogue (lib/domain): the
 * source and type of each resource come from there, never from a copy. Values are JSON strings,
 * as O-RAN's Table 35 and Red Hat's sdk-go write them ("LOCKED", "-3", "6").
 */
import { randomUUID } from 'node:crypto';
import type { NotificationEvent } from '../lib/domain/event';
import { EVENT_CATALOGUE } from '../lib/domain/event-catalogue';

/** The resources a node agent publishes, by the source their catalogue entry names. */
export const RESOURCES = {
  lockState: '/sync/ptp-status/lock-state',
  clockClass: '/sync/ptp-status/clock-class',
  gnss: '/sync/gnss-status/gnss-sync-status',
  osClock: '/sync/sync-status/os-clock-sync-state',
  syncState: '/sync/sync-status/sync-state',
} as const;
export type Resource = keyof typeof RESOURCES;

/** A resource's state: the enumeration (or clock class) that changes, and the metric it carries. */
export interface ResourceState {
  /** What a change is judged on: an enumeration value, or a clock class. */
  readonly value: string;
  /** The offset in nanoseconds (decimal64.3): lock-state's master offset, os-clock's system clock offset. */
  readonly offsetNs?: number;
}

export function eventTypeOf(resource: Resource): string {
  const source = RESOURCES[resource];
  const entry = Object.entries(EVENT_CATALOGUE).find(([, known]) => known.source === source);
  if (!entry) throw new Error(`the event catalogue has no type for ${source}`);
  return entry[0];
}

export function resourceAddress(node: string, resource: Resource): string {
  return `${node}${RESOURCES[resource]}`;
}

export function buildEvent(
  node: string,
  resource: Resource,
  state: ResourceState,
  time: string,
): NotificationEvent {
  const address = resourceAddress(node, resource);
  const values: NotificationEvent['data']['values'] =
    resource === 'clockClass'
      ? [{ ResourceAddress: address, data_type: 'metric', value_type: 'metric', value: state.value }]
      : [
          {
            ResourceAddress: address,
            data_type: 'notification',
            value_type: 'enumeration',
            value: state.value,
          },
          ...(state.offsetNs === undefined
            ? []
            : [
                {
                  ResourceAddress: address,
                  data_type: 'metric' as const,
                  value_type: 'decimal64.3',
                  value: String(state.offsetNs),
                },
              ]),
        ];
  return {
    id: randomUUID(),
    specversion: '1.0',
    source: RESOURCES[resource],
    type: eventTypeOf(resource),
    time,
    data: { version: '1.0', values },
  };
}
