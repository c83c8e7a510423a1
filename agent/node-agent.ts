/**
 * One node's state: what the watchers report becomes the four resources' states; a change (and
 * each state at start) becomes an event in the outbox, in the order lock-state, clock-class,
 * gnss-sync-status, sync-state, and one log line.
 */
import { buildEvent, type Resource, type ResourceState, resourceAddress } from './events';
import type { GnssReport } from './gpsd';
import type { Outbox } from './outbox';
import type { PtpReport } from './ptp4l';
import {
  type GnssState,
  gnssState,
  LOST_CLOCK_CLASS,
  type LockState,
  ptpClockClass,
  ptpLockState,
  ptpRole,
  syncState,
} from './states';

export class NodeAgent {
  private readonly current = new Map<Resource, ResourceState>();
  private ptp: LockState | undefined;
  private gnss: GnssState | undefined;
  private lastMicros = 0;

  constructor(
    private readonly node: string,
    private readonly maxOffsetNs: number,
    private readonly outbox: Outbox,
    private readonly onQueued: () => void,
    private readonly log: (line: string) => void,
  ) {}

  onPtp(report: PtpReport): void {
    if (report.kind === 'lost') {
      this.ptp = 'FREERUN';
      this.update('lockState', { value: 'FREERUN' }, report.at, `ptp4l lost: ${report.reason}`);
      this.update('clockClass', { value: String(LOST_CLOCK_CLASS) }, report.at, 'ptp4l lost');
    } else {
      const { observation } = report;
      this.ptp = ptpLockState(observation, this.maxOffsetNs);
      const ports = [...observation.portStates].map(([port, state]) => `port ${port} ${state}`).join(', ');
      const why =
        ptpRole(observation) === 'grandmaster'
          ? `grandmaster, clock class ${observation.grandmasterClockClass}`
          : `${ports || 'no port'}, offset ${observation.masterOffsetNs} ns, grandmaster ${observation.grandmasterIdentity} class ${observation.grandmasterClockClass}`;
      this.update('lockState', { value: this.ptp, offsetNs: observation.masterOffsetNs }, report.at, why);
      this.update('clockClass', { value: String(ptpClockClass(observation)) }, report.at, why);
    }
    this.updateSyncState(report.at);
  }

  onGnss(report: GnssReport): void {
    this.gnss = gnssState(report.observation);
    this.update('gnss', { value: this.gnss }, report.at, report.reason);
    this.updateSyncState(report.at);
  }

  private updateSyncState(at: number): void {
    const state = syncState({ ptp: this.ptp, gnss: this.gnss });
    if (state)
      this.update('syncState', { value: state }, at, `ptp ${this.ptp ?? '-'}, gnss ${this.gnss ?? '-'}`);
  }

  private update(resource: Resource, state: ResourceState, observedAt: number, why: string): void {
    const previous = this.current.get(resource);
    if (previous?.value === state.value) return;
    this.current.set(resource, state);
    const time = this.eventTime(observedAt);
    const address = resourceAddress(this.node, resource);
    this.log(`${time} ${address} ${previous?.value ?? '(start)'} -> ${state.value} (${why})`);
    this.outbox.push({ address, event: buildEvent(this.node, resource, state, time) });
    this.onQueued();
  }

  /**
   * When the daemon's answer arrived (never ahead of now), in microseconds: events of one
   * observation get consecutive microseconds, so a later event never carries an earlier or equal
   * time and the service keeps them in order, without moving any into the next millisecond.
   */
  private eventTime(observedAt: number): string {
    this.lastMicros = Math.max(observedAt * 1000, this.lastMicros + 1);
    const millis = Math.floor(this.lastMicros / 1000);
    const micros = String(this.lastMicros % 1000).padStart(3, '0');
    return new Date(millis).toISOString().replace('Z', `${micros}Z`);
  }
}
