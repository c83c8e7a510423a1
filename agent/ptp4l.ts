/**
 * Follows one ptp4l through its management socket: DEFAULT_DATA_SET (its own clock), PARENT_DATA_SET
 * (the grandmaster and its clock class), TIME_STATUS_NP (master offset) and PORT_DATA_SET (port
 * states) every poll, plus the port state changes ptp4l pushes after SUBSCRIBE_EVENTS_NP, which
 * start a poll at once. A clock class set on a grandmaster has no push, hence the polling.
 */

import {
  MID,
  PmcClient,
  PmcTimeout,
  type PortState,
  parseDefaultDataSet,
  parseParentDataSet,
  parsePortDataSet,
  parseTimeStatus,
} from './pmc';
import { PollLoop } from './poll-loop';
import type { PtpObservation } from './states';

export type PtpReport =
  | { readonly kind: 'observed'; readonly observation: PtpObservation; readonly at: number }
  | { readonly kind: 'lost'; readonly reason: string; readonly at: number };

export interface Ptp4lOptions {
  readonly udsPath: string;
  /** Where the agent's own end of the socket is bound (ptp4l answers there). */
  readonly clientPath: string;
  readonly domain: number;
  readonly pollMs: number;
}

/** ptp4l keeps a subscription this long; the agent renews it at half that. */
const SUBSCRIPTION_S = 120;

export class Ptp4lWatcher {
  private readonly client: PmcClient;
  private readonly portStates = new Map<number, PortState>();
  private readonly polling: PollLoop;
  private lost = false;
  private timeouts = 0;
  private subscribedAt = 0;

  constructor(
    options: Ptp4lOptions,
    private readonly onReport: (report: PtpReport) => void,
  ) {
    this.client = new PmcClient(options.udsPath, options.clientPath, options.domain);
    this.client.on('message', (message) => {
      if (message.id !== MID.PORT_DATA_SET) return;
      const port = parsePortDataSet(message.data);
      if (this.portStates.get(port.portNumber) !== port.portState) {
        this.portStates.set(port.portNumber, port.portState);
        this.polling.wake();
      }
    });
    this.polling = new PollLoop(options.pollMs, () => this.poll());
  }

  start(): void {
    this.polling.start();
  }

  stop(): void {
    this.polling.stop();
    this.client.close();
  }

  private async poll(): Promise<void> {
    try {
      if (this.lost || Date.now() - this.subscribedAt > (SUBSCRIPTION_S / 2) * 1000) {
        // Versions without SUBSCRIBE_EVENTS_NP refuse it; polling alone still follows them.
        await this.client.subscribePortState(SUBSCRIPTION_S).catch(() => undefined);
        this.subscribedAt = Date.now();
      }
      const [own, parent, time] = await Promise.all([
        this.client.get(MID.DEFAULT_DATA_SET),
        this.client.get(MID.PARENT_DATA_SET),
        this.client.get(MID.TIME_STATUS_NP),
        // Every port answers; the listener above records each.
        this.client.get(MID.PORT_DATA_SET),
      ]);
      const at = Date.now();
      const defaultDs = parseDefaultDataSet(own.data);
      const parentDs = parseParentDataSet(parent.data);
      const status = parseTimeStatus(time.data);
      this.lost = false;
      this.timeouts = 0;
      if (!this.polling.running) return;
      this.onReport({
        kind: 'observed',
        at,
        observation: {
          clockIdentity: defaultDs.clockIdentity,
          clockClass: defaultDs.clockClass,
          grandmasterIdentity: parentDs.grandmasterIdentity,
          grandmasterClockClass: parentDs.grandmasterClockClass,
          masterOffsetNs: status.masterOffsetNs,
          gmPresent: status.gmPresent,
          portStates: new Map(this.portStates),
        },
      });
    } catch (error) {
      if (!this.polling.running) return;
      // A socket that is gone fails at once; one answer late on a busy node is not a lost
      // ptp4l (reporting it would send consumers a FREERUN that never happened): the second
      // time-out in a row is.
      if (error instanceof PmcTimeout && ++this.timeouts < 2) return;
      this.lost = true;
      this.portStates.clear();
      this.onReport({
        kind: 'lost',
        at: Date.now(),
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
