/**
 * The time of an agent's events: when the daemon's answer arrived (never ahead of now), in
 * microseconds, each later than the one before: events of one observation get consecutive
 * microseconds, so a later event never carries an earlier or equal time and the service keeps them
 * in order, without moving any into the next millisecond.
 */
export class EventClock {
  private lastMicros = 0;

  timeOf(observedAt: number): string {
    this.lastMicros = Math.max(observedAt * 1000, this.lastMicros + 1);
    const millis = Math.floor(this.lastMicros / 1000);
    const micros = String(this.lastMicros % 1000).padStart(3, '0');
    return new Date(millis).toISOString().replace('Z', `${micros}Z`);
  }
}
