/**
 * A node's SyncE devices as synce4l reports them: per device, its EEC's lock-state (LOCKED from
 * EEC LOCKED and LOCKED_HO_ACQ, HOLDOVER, FREERUN) and the quality level it has (QL, and the
 * extended QL when the device uses it), each change (and each device's state when first known)
 * an event in the outbox beside the other types, and one log line. The events are published at
 * `<node>/sync/synce-status/lock-state` and `<node>/sync/synce-status/clock-quality`; their values
 * name the device: `<node>/<device>/sync/synce-status/lock-state` (docs/agent.md).
 */
import { randomUUID } from 'node:crypto';
import type { NotificationEvent } from '../lib/domain/event';
import { EVENT_CATALOGUE } from '../lib/domain/event-catalogue';
import { EventClock } from './event-time';
import type { Outbox } from './outbox';
import type { LockState } from './states';
import type { Quality, SynceReport } from './synce4l';

export const SYNCE_RESOURCES = {
  synceLock: '/sync/synce-status/lock-state',
  synceQuality: '/sync/synce-status/clock-quality',
} as const;
type SynceResource = keyof typeof SYNCE_RESOURCES;

/** G.8264's DNU (option 1) and DUS (option 2) are both 0xF; no extended QL is 0xFF. */
export const DNU: Quality = { ql: 0xf, extQl: 0xff };

export function synceEventType(resource: SynceResource): string {
  const source = SYNCE_RESOURCES[resource];
  const entry = Object.entries(EVENT_CATALOGUE).find(([, known]) => known.source === source);
  if (!entry) throw new Error(`the event catalogue has no type for ${source}`);
  return entry[0];
}

export function synceAddress(node: string, resource: SynceResource, device?: string): string {
  return `${node}${device ? `/${device}` : ''}${SYNCE_RESOURCES[resource]}`;
}

/** The event of one device's state: an enumeration, or the QL (and extended QL) as metrics. */
export function buildSynceEvent(
  node: string,
  resource: SynceResource,
  device: string,
  value: LockState | Quality,
  time: string,
): NotificationEvent {
  const ResourceAddress = synceAddress(node, resource, device);
  const values: NotificationEvent['data']['values'] =
    typeof value === 'string'
      ? [{ ResourceAddress, data_type: 'notification', value_type: 'enumeration', value }]
      : [
          { ResourceAddress, data_type: 'metric', value_type: 'metric', value: String(value.ql) },
          ...(value.extQl === undefined
            ? []
            : [
                {
                  ResourceAddress,
                  data_type: 'metric' as const,
                  value_type: 'metric',
                  value: String(value.extQl),
                },
              ]),
        ];
  return {
    id: randomUUID(),
    specversion: '1.0',
    source: SYNCE_RESOURCES[resource],
    type: synceEventType(resource),
    time,
    data: { version: '1.0', values },
  };
}

const qualityText = (quality: Quality) =>
  `0x${quality.ql.toString(16)}${quality.extQl === undefined ? '' : `/0x${quality.extQl.toString(16)}`}`;

export class SynceAgent {
  private readonly states = new Map<string, LockState>();
  private readonly qualities = new Map<string, string>();
  private readonly clock = new EventClock();

  constructor(
    private readonly node: string,
    /** Where each event goes: the outbox, or the node's own API when the agent serves it. */
    private readonly outbox: Pick<Outbox, 'push'>,
    private readonly onQueued: () => void,
    private readonly log: (line: string) => void,
  ) {}

  onReport(report: SynceReport): void {
    if (report.kind === 'state')
      this.update('synceLock', report.device, report.state, report.at, report.reason);
    else if (report.kind === 'quality')
      this.update('synceQuality', report.device, report.quality, report.at, report.reason);
    else {
      // synce4l gone: no EEC is steered, and no quality is known.
      for (const device of new Set([...this.states.keys(), ...this.qualities.keys()])) {
        this.update('synceLock', device, 'FREERUN', report.at, report.reason);
        if (this.qualities.has(device)) this.update('synceQuality', device, DNU, report.at, report.reason);
      }
    }
  }

  private update(
    resource: SynceResource,
    device: string,
    value: LockState | Quality,
    observedAt: number,
    why: string,
  ): void {
    const text = typeof value === 'string' ? value : qualityText(value);
    const current = resource === 'synceLock' ? this.states : this.qualities;
    const previous = current.get(device);
    if (previous === text) return;
    if (typeof value === 'string') this.states.set(device, value);
    else this.qualities.set(device, text);
    const time = this.clock.timeOf(observedAt);
    this.log(
      `${time} ${synceAddress(this.node, resource, device)} ${previous ?? '(start)'} -> ${text} (${why})`,
    );
    this.outbox.push({
      address: synceAddress(this.node, resource),
      event: buildSynceEvent(this.node, resource, device, value, time),
    });
    this.onQueued();
  }
}
