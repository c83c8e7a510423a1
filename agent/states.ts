/**
 * From what ptp4l and gpsd report to the O-RAN states the agent publishes (the table in
 * docs/agent.md). Pure functions: the watchers observe, these decide.
 */
import type { PortState } from './pmc';

export type LockState = 'LOCKED' | 'HOLDOVER' | 'FREERUN';
/** The gnss-sync-status values gpsd's reports can support (a subset of the catalogue's). */
export type GnssState = 'SYNCHRONIZED' | 'ACQUIRING-SYNC' | 'FAILURE-NOFIX';

/** The clock class a lost ptp4l is reported with: 248, the default (free-running) class. */
export const LOST_CLOCK_CLASS = 248;

/**
 * G.8275.1's clock classes of a grandmaster: 6 locked to its primary reference; 7 and 135 in
 * holdover within specification, 140–165 in holdover out of it (still holding time, no longer
 * within its class); anything else (52, 187, 248, 255…) is not traceable.
 */
export function lockStateOfClockClass(clockClass: number): LockState {
  if (clockClass === 6) return 'LOCKED';
  if (clockClass === 7 || clockClass === 135 || (clockClass >= 140 && clockClass <= 165)) return 'HOLDOVER';
  return 'FREERUN';
}

/** What one poll of ptp4l's management socket saw. */
export interface PtpObservation {
  readonly clockIdentity: string;
  /** The clock's own class (DEFAULT_DATA_SET): 255 for a slave-only clock, 248 free-running. */
  readonly clockClass: number;
  readonly grandmasterIdentity: string;
  readonly grandmasterClockClass: number;
  readonly masterOffsetNs: number;
  readonly gmPresent: boolean;
  /** Every port's state, by port number (a boundary clock has several). */
  readonly portStates: ReadonlyMap<number, PortState>;
}

export type PtpRole = 'grandmaster' | 'follower';

export function ptpRole(observation: PtpObservation): PtpRole {
  return observation.grandmasterIdentity === observation.clockIdentity ? 'grandmaster' : 'follower';
}

/**
 * A grandmaster (its own clock is the best master, T-GM): its clock class says it all. A
 * follower (ordinary or boundary clock): LOCKED needs a port in SLAVE (ptp4l's servo locked),
 * a grandmaster present and |master offset| within the threshold; then the grandmaster's class
 * decides, since a clock locked to a grandmaster in holdover is in holdover too, and one locked
 * to a free-running grandmaster is not traceable.
 */
export function ptpLockState(observation: PtpObservation, maxOffsetNs: number): LockState {
  if (ptpRole(observation) === 'grandmaster') return lockStateOfClockClass(observation.grandmasterClockClass);
  const slave = [...observation.portStates.values()].includes('SLAVE');
  if (!slave || !observation.gmPresent || Math.abs(observation.masterOffsetNs) > maxOffsetNs)
    return 'FREERUN';
  return lockStateOfClockClass(observation.grandmasterClockClass);
}

/**
 * The clock class the node's PTP clock is traceable with: the grandmaster's (PARENT_DATA_SET)
 * while it is a grandmaster or a port follows one (SLAVE or UNCALIBRATED); its own otherwise
 * (a slave-only ptp4l keeps the lost grandmaster in PARENT_DATA_SET, which no longer applies).
 */
export function ptpClockClass(observation: PtpObservation): number {
  if (ptpRole(observation) === 'grandmaster') return observation.grandmasterClockClass;
  const following = [...observation.portStates.values()].some(
    (state) => state === 'SLAVE' || state === 'UNCALIBRATED',
  );
  return following ? observation.grandmasterClockClass : observation.clockClass;
}

/** gpsd's view: its TPV mode (0 unknown, 1 no fix, 2 2D, 3 3D), no device, or gpsd gone. */
export type GnssObservation =
  | { readonly kind: 'fix'; readonly mode: number }
  | { readonly kind: 'no-device' }
  | { readonly kind: 'lost' }
  | { readonly kind: 'silent' };

export function gnssState(observation: GnssObservation): GnssState {
  if (observation.kind !== 'fix') return 'FAILURE-NOFIX';
  if (observation.mode >= 3) return 'SYNCHRONIZED';
  if (observation.mode === 2) return 'ACQUIRING-SYNC';
  return 'FAILURE-NOFIX';
}

/**
 * The node's sync-state (O-RAN v04.00: its overall synchronisation health): the worst of the
 * clocks the agent follows. With ptp4l followed that is its lock-state (GNSS reaches a T-GM's
 * PTP clock through the clock class ts2phc or an operator sets, as in Red Hat's reference, whose
 * os-clock state also follows the PTP lock-state); with gpsd alone, GNSS SYNCHRONIZED is LOCKED
 * and anything else FREERUN (gpsd reports no holdover).
 */
export function syncState(parts: { ptp?: LockState; gnss?: GnssState }): LockState | undefined {
  if (parts.ptp) return parts.ptp;
  if (parts.gnss) return parts.gnss === 'SYNCHRONIZED' ? 'LOCKED' : 'FREERUN';
  return undefined;
}
