/**
 * Follows a stock synce4l (intel/synce4l 1.1.x, the SyncE daemon Red Hat's linuxptp-daemon runs)
 * through the lines it logs, from wherever they go (`-`, a file, `journal:<unit>`, as phc2sys's),
 * and, optionally, its control socket (`smc_socket_path`), which it asks for each device's
 * quality level. The line formats are synce4l's own (synce_dev.c, synce_port_ctrl.c; Red Hat's
 * pkg/synce/synce.go reads the same ones):
 *
 *   synce4l[627685.138]: [synce4l.0.config] act on EEC_LOCKED/EEC_LOCKED_HO_ACQ for ens7f0
 *   synce4l[627602.540]: [synce4l.0.config] act on EEC_HOLDOVER for ens7f0
 *   synce4l[627602.540]: [synce4l.0.config] EEC_HOLDOVER on synce1                 (DPLL mode)
 *   synce4l[627602.540]: [synce4l.0.config] EEC_LOCKED/EEC_LOCKED_HO_ACQ on GNSS of synce1
 *   synce4l[337.416]: [sb] nothing to do for ens7f0 d_state 1, best_p (nil)        (logging_level 7)
 *   synce4l[337.409]: [sb] inited num_clock_sources 1 (1 ports) for synce1
 *   synce4l[337.356]: [sb] clock_source ens7f0 added on device synce1 addr 0x5643…  (logging_level 7)
 */
import { createConnection } from 'node:net';
import { LineSource } from './line-source';
import type { LockState } from './states';

/** synce4l's EEC states (synce_dev_ctrl.h: EEC_INVALID 0, FREERUN 1, LOCKED 2, LOCKED_HO_ACQ 3, HOLDOVER 4). */
const D_STATES: Readonly<Record<number, LockState>> = {
  0: 'FREERUN',
  1: 'FREERUN',
  2: 'LOCKED',
  3: 'LOCKED',
  4: 'HOLDOVER',
};

/** What one synce4l line says. */
export type Synce4lLine =
  /** The EEC of a port's device (command mode) or of a device (DPLL mode) is in this state. */
  | { readonly kind: 'state'; readonly port?: string; readonly device?: string; readonly state: LockState }
  /** A device exists (its start-up lines), with one of its ports when the line names one. */
  | { readonly kind: 'device'; readonly device: string; readonly port?: string }
  /** No ESMC frame on a port for 5 s (QL-failed): its quality is lost. */
  | { readonly kind: 'ql-failed'; readonly port: string }
  /** synce4l starts (`created num_devices: N`): its devices set up, one `inited` line each. */
  | { readonly kind: 'starting'; readonly devices: number };

export function readSynce4lLine(line: string): Synce4lLine | undefined {
  let match = /\bact on (EEC_LOCKED\/EEC_LOCKED_HO_ACQ|EEC_HOLDOVER) for (\S+)/.exec(line);
  if (match?.[1] && match[2])
    return { kind: 'state', port: match[2], state: match[1] === 'EEC_HOLDOVER' ? 'HOLDOVER' : 'LOCKED' };
  match = /\bnothing to do for (\S+) d_state (-?\d+)/.exec(line);
  if (match?.[1] && match[2]) {
    const state = D_STATES[Number(match[2])];
    return state && { kind: 'state', port: match[1], state };
  }
  match = /\bEEC_LOCKED\/EEC_LOCKED_HO_ACQ on (\S+) of (\S+)/.exec(line);
  if (match?.[2]) return { kind: 'state', device: match[2], state: 'LOCKED' };
  match = /\bEEC_HOLDOVER on (\S+)/.exec(line);
  if (match?.[1]) return { kind: 'state', device: match[1], state: 'HOLDOVER' };
  match = /\bQL not received on (\S+) within/.exec(line);
  if (match?.[1]) return { kind: 'ql-failed', port: match[1] };
  match = /\bclock_source (\S+) added on device (\S+)/.exec(line);
  if (match?.[1] && match[2]) return { kind: 'device', device: match[2], port: match[1] };
  match = /\bcreated num_devices: (\d+)/.exec(line);
  if (match?.[1]) return { kind: 'starting', devices: Number(match[1]) };
  match = /\binited num_clock_sources \d+ \(\d+ ports\) for (\S+)/.exec(line);
  if (match?.[1]) return { kind: 'device', device: match[1] };
  return undefined;
}

/** A device's quality level as its control socket gives it (`GET_QL`, `GET_EXT_QL`). */
export interface Quality {
  readonly ql: number;
  /** The extended QL, when asked for (the device's `extended_tlv 1`); 0xff when it has none. */
  readonly extQl?: number;
}

/** synce4l's control socket's TLV types (its smc.h). */
export const MSG = {
  devName: 1,
  srcName: 2,
  errMsg: 3,
  getQl: 4,
  getExtQl: 5,
  setQl: 6,
  setExtQl: 7,
  end: 8,
} as const;

/** One TLV of synce4l's control socket: a 16-bit type and a 16-bit length, little-endian, then the value. */
export function tlv(type: number, value = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(value.length, 2);
  return Buffer.concat([head, value]);
}
const SOCKET_TIMEOUT_MS = 1000;

/**
 * Asks synce4l's control socket (a stream socket: one command, one answer, then it closes) for a
 * device's QL and extended QL: TLVs of a 16-bit type and a 16-bit length, little-endian as
 * synce4l writes them on x86 and ARM, ending with END_MARKER.
 */
export function askQuality(socket: string, device: string): Promise<Quality> {
  // synce4l reads a whole type and length before it looks at the type, END_MARKER's too.
  const command = Buffer.concat([
    tlv(MSG.devName, Buffer.from(device)),
    tlv(MSG.getQl),
    tlv(MSG.getExtQl),
    tlv(MSG.end),
  ]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const connection = createConnection(socket);
    connection.setTimeout(SOCKET_TIMEOUT_MS, () => connection.destroy(new Error('no answer within 1 s')));
    connection.on('connect', () => connection.write(command));
    connection.on('data', (chunk) => chunks.push(chunk));
    connection.on('error', reject);
    connection.on('close', () => {
      try {
        resolve(readAnswer(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function readAnswer(answer: Buffer): Quality {
  let ql: number | undefined;
  let extQl: number | undefined;
  for (let at = 0; at + 2 <= answer.length; ) {
    const type = answer.readUInt16LE(at);
    if (type === MSG.end) break;
    const length = answer.readUInt16LE(at + 2);
    const value = answer.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    if (type === MSG.errMsg) throw new Error(value.toString('utf8'));
    if (type === MSG.getQl) ql = value[0];
    if (type === MSG.getExtQl) extQl = value[0];
  }
  if (ql === undefined) throw new Error(answer.length ? 'no QL in its answer' : 'an empty answer');
  return { ql, extQl };
}

export type SynceReport =
  | {
      readonly kind: 'state';
      readonly device: string;
      readonly state: LockState;
      readonly at: number;
      readonly reason: string;
    }
  | {
      readonly kind: 'quality';
      readonly device: string;
      readonly quality: Quality;
      readonly at: number;
      readonly reason: string;
    }
  /** synce4l does not answer on its socket, or its lines' source ended: every device is FREERUN. */
  | { readonly kind: 'lost'; readonly at: number; readonly reason: string };

/**
 * From synce4l's lines to reports per device. Ports map to their devices through synce4l's own
 * start-up lines (read from the source's history: the file, the unit's journal since boot); a
 * port whose device synce4l never named belongs to the only device it named, or, when it named
 * several or none, stands for a device of its own. With the socket, each known device's QL is
 * read every poll, and a socket that refuses is synce4l gone.
 */
export class Synce4lWatcher {
  private running = false;
  private readonly lines: LineSource;
  private readonly devices = new Set<string>();
  private readonly deviceOfPort = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private lost = false;
  /** How many devices synce4l is still setting up: their state lines until then are its own defaults. */
  private settingUp = 0;

  constructor(
    source: string,
    private readonly socket: string | undefined,
    private readonly pollMs: number,
    private readonly onReport: (report: SynceReport) => void,
  ) {
    this.lines = new LineSource(
      source,
      (line) => this.read(line),
      (why) => this.onReport({ kind: 'lost', at: Date.now(), reason: `synce4l: ${why}` }),
    );
  }

  /** What synce4l said before the agent started, then its lines as they come. */
  async start(): Promise<void> {
    this.running = true;
    const lastState = new Map<string, Synce4lLine & { kind: 'state' }>();
    for (const line of await this.lines.history()) {
      const read = this.setUp(readSynce4lLine(line));
      if (read?.kind === 'state') lastState.set(read.device ?? read.port ?? '', read);
      if (read?.kind === 'starting') lastState.clear();
    }
    if (!this.running) return;
    const at = Date.now();
    for (const read of lastState.values()) this.report(read, at, 'synce4l before the agent started');
    this.lines.start();
    if (this.socket) void this.poll();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.lines.stop();
  }

  /**
   * Learns devices and ports, and follows synce4l's start: from `created num_devices: N` until
   * its N devices are `inited`, synce4l logs the state it starts from (HOLDOVER, its default),
   * not its EEC's; those lines are dropped. What is left to report is returned.
   */
  private setUp(read: Synce4lLine | undefined): Synce4lLine | undefined {
    if (read?.kind === 'starting') this.settingUp = read.devices;
    if (read?.kind !== 'device') return read?.kind === 'state' && this.settingUp > 0 ? undefined : read;
    this.devices.add(read.device);
    if (read.port) this.deviceOfPort.set(read.port, read.device);
    else this.settingUp = Math.max(0, this.settingUp - 1);
    return undefined;
  }

  private deviceOf(port: string): string {
    const known = this.deviceOfPort.get(port);
    if (known) return known;
    const [only] = this.devices;
    return this.devices.size === 1 && only ? only : port;
  }

  private read(line: string): void {
    const read = this.setUp(readSynce4lLine(line));
    if (read) this.report(read, Date.now(), `synce4l: ${line.trim()}`);
  }

  private report(read: Synce4lLine, at: number, reason: string): void {
    if (read.kind === 'state') {
      const device = read.device ?? this.deviceOf(read.port ?? '');
      this.devices.add(device);
      this.onReport({ kind: 'state', device, state: read.state, at, reason });
    } else if (read.kind === 'starting') {
      // A synce4l (re)starting steers no EEC yet: FREERUN until it says otherwise.
      this.onReport({ kind: 'lost', at, reason });
    } else if (read.kind === 'ql-failed' && this.socket) {
      // The socket's next answer says what the device now has; ask at once.
      clearTimeout(this.timer);
      void this.poll();
    }
  }

  private async poll(): Promise<void> {
    const socket = this.socket;
    if (!this.running || !socket) return;
    // With no device named yet, a name synce4l has none of still shows it answers.
    const devices = this.devices.size ? [...this.devices] : [undefined];
    for (const device of devices) {
      try {
        const quality = await askQuality(socket, device ?? '-');
        if (!this.running) return;
        this.lost = false;
        if (device === undefined) continue;
        const reason = `synce4l's socket: ${device} QL 0x${quality.ql.toString(16)}${quality.extQl === undefined ? '' : `, extended QL 0x${quality.extQl.toString(16)}`}`;
        this.onReport({ kind: 'quality', device, quality, at: Date.now(), reason });
      } catch (error) {
        if (!this.running) return;
        const why = error instanceof Error ? error.message : String(error);
        // A device synce4l does not know is a name the lines gave wrongly, not synce4l gone.
        if (why === 'Device not found') {
          this.lost = false;
          continue;
        }
        if (!this.lost)
          this.onReport({
            kind: 'lost',
            at: Date.now(),
            reason: `synce4l at ${socket} does not answer (${why})`,
          });
        this.lost = true;
        break;
      }
    }
    if (this.running) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.poll(), this.pollMs);
    }
  }
}
