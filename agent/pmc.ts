/**
 * A client of ptp4l's management socket: the IEEE 1588 management messages linuxptp's `pmc -u`
 * sends over a Unix datagram socket (wire layout from linuxptp's msg.h and tlv.h; see
 * docs/agent.md). Node has no Unix datagram sockets; `node-unix-socket` provides them with
 * prebuilt N-API binaries (no install script, which npm here does not run).
 */
import { EventEmitter } from 'node:events';
import { unlinkSync } from 'node:fs';
import { DgramSocket } from 'node-unix-socket';

/** Management ids (linuxptp tlv.h) of the data sets the agent reads. */
export const MID = {
  DEFAULT_DATA_SET: 0x2000,
  PARENT_DATA_SET: 0x2002,
  PORT_DATA_SET: 0x2004,
  TIME_STATUS_NP: 0xc000,
  SUBSCRIBE_EVENTS_NP: 0xc003,
} as const;

const ACTION = { GET: 0, SET: 1, RESPONSE: 2 } as const;
const MESSAGE_TYPE_MANAGEMENT = 0x0d;
const PTP_VERSION = 2;
const CONTROL_MANAGEMENT = 4;
const TLV_MANAGEMENT = 0x0001;
const TLV_MANAGEMENT_ERROR_STATUS = 0x0002;
/** The common header (34 bytes) and the management message's own fields (14 bytes). */
const MANAGEMENT_HEADER_LENGTH = 48;
/** linuxptp notification.h: NOTIFY_PORT_STATE is bit 0 of SUBSCRIBE_EVENTS_NP's bitmask. */
const NOTIFY_PORT_STATE_BIT = 0;
const EVENT_BITMASK_BYTES = 64;

/** IEEE 1588 portState values (linuxptp's enum port_state). */
export const PORT_STATES = [
  'NONE',
  'INITIALIZING',
  'FAULTY',
  'DISABLED',
  'LISTENING',
  'PRE_MASTER',
  'MASTER',
  'PASSIVE',
  'UNCALIBRATED',
  'SLAVE',
  'GRAND_MASTER',
] as const;
export type PortState = (typeof PORT_STATES)[number];

export interface ManagementMessage {
  readonly id: number;
  readonly action: number;
  readonly sequenceId: number;
  readonly data: Buffer;
}

export class PmcError extends Error {}
/** ptp4l did not answer in time (its socket is there). */
export class PmcTimeout extends PmcError {}

interface Pending {
  readonly id: number;
  readonly resolve: (message: ManagementMessage) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Emits `message` for every management message that arrives (answers and the pushes
 * SUBSCRIBE_EVENTS_NP asks for alike), so a watcher can treat every PORT_DATA_SET the same way.
 */
export class PmcClient extends EventEmitter<{ message: [ManagementMessage] }> {
  private readonly socket = new DgramSocket();
  private readonly pending = new Map<number, Pending>();
  private sequence = 0;
  private closed = false;

  /**
   * @param serverPath ptp4l's `uds_address`
   * @param clientPath where this client binds: ptp4l answers to the sender's address, so it must
   *   be a path ptp4l can reach (pmc uses /var/run/pmc.<pid>)
   */
  constructor(
    private readonly serverPath: string,
    private readonly clientPath: string,
    private readonly domain = 0,
    private readonly timeoutMs = 1000,
  ) {
    super();
    removeStale(clientPath);
    this.socket.bind(clientPath);
    this.socket.on('data', (buffer: Buffer) => this.receive(buffer));
    this.socket.on('error', () => undefined);
  }

  get(id: number): Promise<ManagementMessage> {
    // Zero-length GETs, as `pmc -z` sends them: ptp4l answers with the whole data set.
    return this.request(ACTION.GET, id, Buffer.alloc(0));
  }

  set(id: number, data: Buffer): Promise<ManagementMessage> {
    return this.request(ACTION.SET, id, data);
  }

  /** Asks ptp4l to push PORT_DATA_SET on every port state change for `durationS` seconds. */
  subscribePortState(durationS: number): Promise<ManagementMessage> {
    const data = Buffer.alloc(2 + EVENT_BITMASK_BYTES);
    data.writeUInt16BE(durationS, 0);
    data[2 + (NOTIFY_PORT_STATE_BIT >> 3)] = 1 << (NOTIFY_PORT_STATE_BIT & 7);
    return this.set(MID.SUBSCRIBE_EVENTS_NP, data);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [sequenceId, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new PmcError('closed'));
      this.pending.delete(sequenceId);
    }
    this.socket.close();
    removeStale(this.clientPath);
  }

  private request(action: number, id: number, data: Buffer): Promise<ManagementMessage> {
    if (this.closed) return Promise.reject(new PmcError('closed'));
    this.sequence = (this.sequence + 1) & 0xffff;
    const sequenceId = this.sequence;
    const message = encode(action, id, data, sequenceId, this.domain);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(sequenceId);
        reject(new PmcTimeout(`no answer from ${this.serverPath} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(sequenceId, { id, resolve, reject, timer });
      this.socket.sendTo(message, 0, message.length, this.serverPath, (error) => {
        if (!error) return;
        const waiting = this.pending.get(sequenceId);
        if (!waiting) return;
        clearTimeout(waiting.timer);
        this.pending.delete(sequenceId);
        reject(new PmcError(`${this.serverPath}: ${error.message}`));
      });
    });
  }

  private receive(buffer: Buffer): void {
    let message: ManagementMessage | undefined;
    let error: PmcError | undefined;
    try {
      message = decode(buffer);
    } catch (caught) {
      error = caught instanceof PmcError ? caught : new PmcError(String(caught));
    }
    const sequenceId = buffer.length >= 32 ? buffer.readUInt16BE(30) : -1;
    const pending = this.pending.get(sequenceId);
    if (pending && (error || message?.id === pending.id)) {
      clearTimeout(pending.timer);
      this.pending.delete(sequenceId);
      if (error) pending.reject(error);
      else if (message) pending.resolve(message);
    }
    if (message) this.emit('message', message);
  }
}

function encode(action: number, id: number, data: Buffer, sequenceId: number, domain: number): Buffer {
  // A TLV's length is even: odd data gets one pad byte (pmc_common.c does the same).
  const padded = data.length % 2 === 1 ? Buffer.concat([data, Buffer.alloc(1)]) : data;
  const length = MANAGEMENT_HEADER_LENGTH + 6 + padded.length;
  const message = Buffer.alloc(length);
  message[0] = MESSAGE_TYPE_MANAGEMENT;
  message[1] = PTP_VERSION;
  message.writeUInt16BE(length, 2);
  message[4] = domain;
  // sourcePortIdentity (bytes 20–29) stays zero, as pmc's over UDS.
  message.writeUInt16BE(sequenceId, 30);
  message[32] = CONTROL_MANAGEMENT;
  message[33] = 0x7f;
  // targetPortIdentity: every clock, every port.
  message.fill(0xff, 34, 44);
  message[44] = 0; // startingBoundaryHops (pmc -b 0)
  message[45] = 0; // boundaryHops
  message[46] = action;
  message.writeUInt16BE(TLV_MANAGEMENT, 48);
  message.writeUInt16BE(2 + padded.length, 50);
  message.writeUInt16BE(id, 52);
  padded.copy(message, 54);
  return message;
}

function decode(buffer: Buffer): ManagementMessage {
  if (buffer.length < MANAGEMENT_HEADER_LENGTH + 6 || ((buffer[0] ?? 0) & 0x0f) !== MESSAGE_TYPE_MANAGEMENT) {
    throw new PmcError('not a management message');
  }
  const sequenceId = buffer.readUInt16BE(30);
  const action = (buffer[46] ?? 0) & 0x0f;
  const tlvType = buffer.readUInt16BE(48);
  const tlvLength = buffer.readUInt16BE(50);
  const end = Math.min(buffer.length, 52 + tlvLength);
  if (tlvType === TLV_MANAGEMENT_ERROR_STATUS) {
    const errorId = buffer.readUInt16BE(52);
    const id = buffer.readUInt16BE(54);
    throw new PmcError(`ptp4l refused management id 0x${id.toString(16)}: error 0x${errorId.toString(16)}`);
  }
  if (tlvType !== TLV_MANAGEMENT) throw new PmcError(`unexpected TLV type 0x${tlvType.toString(16)}`);
  return { id: buffer.readUInt16BE(52), action, sequenceId, data: buffer.subarray(54, end) };
}

function removeStale(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // nothing there
  }
}

/** The parts of ptp4l's data sets the agent reads (offsets from linuxptp's ds.h and tlv.h). */
export interface DefaultDataSet {
  readonly clockClass: number;
  readonly clockIdentity: string;
  readonly slaveOnly: boolean;
}
export interface ParentDataSet {
  readonly grandmasterClockClass: number;
  readonly grandmasterIdentity: string;
}
export interface TimeStatus {
  /** Nanoseconds; a bigint on the wire, well within a double for any offset that matters. */
  readonly masterOffsetNs: number;
  readonly gmPresent: boolean;
}
export interface PortDataSet {
  readonly portNumber: number;
  readonly portState: PortState;
}

export function parseDefaultDataSet(data: Buffer): DefaultDataSet {
  need(data, 20, 'DEFAULT_DATA_SET');
  return {
    slaveOnly: ((data[0] ?? 0) & 0x02) !== 0,
    clockClass: data[5] ?? 0,
    clockIdentity: clockIdentity(data, 10),
  };
}

export function parseParentDataSet(data: Buffer): ParentDataSet {
  need(data, 32, 'PARENT_DATA_SET');
  return { grandmasterClockClass: data[19] ?? 0, grandmasterIdentity: clockIdentity(data, 24) };
}

export function parseTimeStatus(data: Buffer): TimeStatus {
  need(data, 50, 'TIME_STATUS_NP');
  return { masterOffsetNs: Number(data.readBigInt64BE(0)), gmPresent: data.readInt32BE(38) !== 0 };
}

export function parsePortDataSet(data: Buffer): PortDataSet {
  need(data, 11, 'PORT_DATA_SET');
  return { portNumber: data.readUInt16BE(8), portState: PORT_STATES[data[10] ?? 0] ?? 'NONE' };
}

function clockIdentity(data: Buffer, offset: number): string {
  const hex = data.toString('hex', offset, offset + 8);
  return `${hex.slice(0, 6)}.${hex.slice(6, 10)}.${hex.slice(10)}`;
}

function need(data: Buffer, length: number, what: string): void {
  if (data.length < length) throw new PmcError(`${what} is ${data.length} bytes, expected ${length}`);
}
