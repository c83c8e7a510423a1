/**
 * One node's state: what the watchers report becomes the five resources' states; a change (and
 * each state at start) becomes an event in the outbox, in the order lock-state, clock-class,
 * gnss-sync-status, os-clock-sync-state, sync-state, and one log line.
 */
import type { OsClockReport } from './chronyd';
import { EventClock } from './event-time';
import { buildEvent, type Resource, type ResourceState, resourceAddress } from './events';
import type { GnssReport } from './gpsd';
import type { Outbox } from './outbox';
import type { PtpReport } from './ptp4l';
import {
  type GnssState,
  gnssState,
  LOST_CLOCK_CLASS,
  type LockState,
  type OsClockLimits,
  osClockState,
  ptpClockClass,
  ptpLockState,
  ptpRole,
  syncState,
  worstOf,
} from './states';

export interface OsClockSettings extends OsClockLimits {
  /**
   * phc2sys disciplines the OS clock from the PTP clock, so the OS clock is never better than the
   * PTP lock-state it follows (O-RAN v04.00 Table 37); chronyd's NTP sources are its own.
   */
  readonly followsPtp: boolean;
}

export class NodeAgent {
  private readonly current = new Map<Resource, ResourceState>();
  private ptp: LockState | undefined;
  private gnss: GnssState | undefined;
  /** The OS clock's own state, its last report, and when its holdover began. */
  private os: LockState | undefined;
  private osReport: OsClockReport | undefined;
  private holdoverSince: number | undefined;
  private holdoverTimer: NodeJS.Timeout | undefined;
  private readonly clock = new EventClock();

  constructor(
    private readonly node: string,
    private readonly maxOffsetNs: number,
    /** Where each event goes: the outbox, or the node's own API when the agent serves it. */
    private readonly outbox: Pick<Outbox, 'push'>,
    private readonly onQueued: () => void,
    private readonly log: (line: string) => void,
    private readonly osClock?: OsClockSettings,
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
    if (this.osClock?.followsPtp && this.osReport) this.publishOsClock(this.osReport, report.at);
    this.updateSyncState(report.at);
  }

  onOsClock(report: OsClockReport): void {
    if (!this.osClock) return;
    const judged = osClockState(report.observation, this.os, this.holdoverSince, report.at, this.osClock);
    this.os = judged.state;
    this.osReport = report;
    this.holdoverSince = judged.holdoverSince;
    clearTimeout(this.holdoverTimer);
    if (judged.state === 'HOLDOVER' && judged.holdoverSince !== undefined) {
      // The holdover ends on time even if no report comes (a silent phc2sys).
      const endsAt = judged.holdoverSince + this.osClock.holdoverMs;
      this.holdoverTimer = setTimeout(
        () => this.onOsClock({ ...report, at: Math.max(endsAt, Date.now()) }),
        Math.max(0, endsAt - Date.now()),
      );
    }
    this.publishOsClock(report, report.at);
    this.updateSyncState(report.at);
  }

  /** Stops the holdover timer, so that a stopped agent's process can end. */
  stop(): void {
    clearTimeout(this.holdoverTimer);
  }

  /** The os-clock-sync-state published: with phc2sys, no better than the PTP lock-state. */
  private get publishedOs(): LockState | undefined {
    return this.osClock?.followsPtp && this.os ? worstOf(this.os, this.ptp) : this.os;
  }

  private publishOsClock(report: OsClockReport, at: number): void {
    const state = this.publishedOs;
    if (!state) return;
    const offsetNs = report.observation.kind === 'lost' ? undefined : report.observation.offsetNs;
    const why =
      state === this.os ? report.reason : `${report.reason}; the PTP clock it follows is ${this.ptp}`;
    this.update('osClock', offsetNs === undefined ? { value: state } : { value: state, offsetNs }, at, why);
  }

  onGnss(report: GnssReport): void {
    this.gnss = gnssState(report.observation);
    this.update('gnss', { value: this.gnss }, report.at, report.reason);
    this.updateSyncState(report.at);
  }

  private updateSyncState(at: number): void {
    const os = this.publishedOs;
    const state = syncState({ ptp: this.ptp, os, gnss: this.gnss });
    if (state)
      this.update(
        'syncState',
        { value: state },
        at,
        `ptp ${this.ptp ?? '-'}, os-clock ${os ?? '-'}, gnss ${this.gnss ?? '-'}`,
      );
  }

  private update(resource: Resource, state: ResourceState, observedAt: number, why: string): void {
    const previous = this.current.get(resource);
    if (previous?.value === state.value) return;
    this.current.set(resource, state);
    const time = this.clock.timeOf(observedAt);
    const address = resourceAddress(this.node, resource);
    this.log(`${time} ${address} ${previous?.value ?? '(start)'} -> ${state.value} (${why})`);
    this.outbox.push({ address, event: buildEvent(this.node, resource, state, time) });
    this.onQueued();
  }
}
