/** The event types the service knows (the OpenAPI document's Event schema). Unknown types of the right form pass. */
export interface KnownEventType {
  readonly source: string;
  /** Allowed `enumeration` values; undefined when the type carries no enumeration. */
  readonly states?: readonly string[];
  /** Inclusive range of `metric` values, e.g. clock class 0–255. */
  readonly metricRange?: readonly [number, number];
}

const LOCK_STATES = ['LOCKED', 'HOLDOVER', 'FREERUN'] as const;
const GNSS_STATES = [
  'SYNCHRONIZED',
  'ACQUIRING-SYNC',
  'ANTENNA-DISCONNECTED',
  'BOOTING',
  'ANTENNA-SHORT-CIRCUIT',
  'FAILURE-MULTIPATH',
  'FAILURE-NOFIX',
  'FAILURE-LOW-SNR',
  'FAILURE-PLL',
] as const;

export const EVENT_CATALOGUE: Readonly<Record<string, KnownEventType>> = {
  'event.sync.sync-status.synchronization-state-change': {
    source: '/sync/sync-status/sync-state',
    states: LOCK_STATES,
  },
  'event.sync.ptp-status.ptp-state-change': { source: '/sync/ptp-status/lock-state', states: LOCK_STATES },
  'event.sync.sync-status.os-clock-sync-state-change': {
    source: '/sync/sync-status/os-clock-sync-state',
    states: LOCK_STATES,
  },
  'event.sync.gnss-status.gnss-state-change': {
    source: '/sync/gnss-status/gnss-sync-status',
    states: GNSS_STATES,
  },
  'event.sync.synce-status.synce-state-change': {
    source: '/sync/synce-status/lock-state',
    states: LOCK_STATES,
  },
  'event.sync.ptp-status.ptp-clock-class-change': {
    source: '/sync/ptp-status/clock-class',
    metricRange: [0, 255],
  },
  'event.sync.synce-status.synce-clock-quality-change': {
    source: '/sync/synce-status/clock-quality',
    metricRange: [0, 255],
  },
};
