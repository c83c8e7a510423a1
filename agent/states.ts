/**
 * From what ptp4l, gpsd, chronyd and phc2sys report to the O-RAN states the agent publishes (the
 * tables in docs/agent.md). Pure functions: the watchers observe, these decide.
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
 * What the OS clock's discipline says at one observation: chronyd (`chronyc -c sources` and
 * `tracking`) or phc2sys (its CLOCK_REALTIME offset lines). The offset is the system clock's, in
 * nanoseconds, positive when it is ahead of its source.
 */
export type OsClockObservation =
  /** chronyd has a selected source (`*`); phc2sys's servo is locked (s2, s3). */
  | { readonly kind: 'synchronised'; readonly offsetNs: number }
  /** phc2sys's servo is not locked (s0 unlocked, s1 stepping the clock). */
  | { readonly kind: 'unlocked'; readonly offsetNs: number }
  /** chronyd answers but has no selected source; phc2sys has gone quiet. */
  | { readonly kind: 'no-source'; readonly offsetNs?: number }
  /** chronyd does not answer. */
  | { readonly kind: 'lost' };

export interface OsClockLimits {
  readonly maxOffsetNs: number;
  readonly holdoverMs: number;
}

/**
 * The os-clock-sync-state of one observation (the table in docs/agent.md): LOCKED while the
 * discipline has its source and |offset| ≤ the threshold; HOLDOVER from the moment a LOCKED clock
 * loses its source, for the holdover time; FREERUN after that, and at once when the daemon does
 * not answer, its servo is not locked, or the offset is beyond the threshold (Red Hat's
 * linuxptp-daemon: an offset out of its thresholds is FREERUN). `holdoverSince` is when the
 * holdover began; it is carried from one observation to the next.
 */
export function osClockState(
  observation: OsClockObservation,
  previous: LockState | undefined,
  holdoverSince: number | undefined,
  now: number,
  limits: OsClockLimits,
): { state: LockState; holdoverSince?: number } {
  if (observation.kind === 'synchronised' && Math.abs(observation.offsetNs) <= limits.maxOffsetNs)
    return { state: 'LOCKED' };
  if (observation.kind !== 'no-source') return { state: 'FREERUN' };
  const since = holdoverSince ?? (previous === 'LOCKED' ? now : undefined);
  if (since === undefined) return { state: 'FREERUN' };
  return { state: now - since < limits.holdoverMs ? 'HOLDOVER' : 'FREERUN', holdoverSince: since };
}

const SEVERITY: Readonly<Record<LockState, number>> = { LOCKED: 0, HOLDOVER: 1, FREERUN: 2 };

/** The worst of the states given (FREERUN worst), as Red Hat's `OverallState` folds them. */
export function worstOf(...states: (LockState | undefined)[]): LockState | undefined {
  let worst: LockState | undefined;
  for (const state of states) {
    if (state && (!worst || SEVERITY[state] > SEVERITY[worst])) worst = state;
  }
  return worst;
}

/**
 * The node's sync-state (O-RAN v04.00: its overall synchronisation health, as Red Hat's
 * `GetNodeSyncState` takes it): the worst of the clocks the agent follows, the PTP lock-state, the
 * os-clock-sync-state and GNSS. GNSS SYNCHRONIZED counts as LOCKED. A GNSS without a fix counts
 * as HOLDOVER beside ptp4l: on a T-GM the PTP clock holds the time over, and its clock class
 * (7, then 248 once out of holdover, set by ts2phc or the operator) says how long, so the PTP
 * lock-state takes the node to FREERUN; with gpsd alone, which reports no holdover, it is FREERUN.
 */
export function syncState(parts: {
  ptp?: LockState;
  os?: LockState;
  gnss?: GnssState;
}): LockState | undefined {
  const gnss =
    parts.gnss === undefined
      ? undefined
      : parts.gnss === 'SYNCHRONIZED'
        ? 'LOCKED'
        : parts.ptp
          ? 'HOLDOVER'
          : 'FREERUN';
  return worstOf(parts.ptp, parts.os, gnss);
}
