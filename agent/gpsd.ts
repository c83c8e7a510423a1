/**
 * Follows gpsd through its JSON protocol (`?WATCH={"enable":true,"json":true}`): TPV reports give
 * the fix mode, DEVICES and DEVICE reports the receivers present. A lost connection is reported
 * and retried every second; a receiver listed but silent for SILENCE_MS (or a gpsd that never
 * greets) is reported too.
 */
import { createConnection, type Socket } from 'node:net';
import type { GnssObservation } from './states';

const RECONNECT_MS = 1000;
/** Receivers report at least once a second; five seconds without a TPV is a silent receiver. */
const SILENCE_MS = 5000;

export interface GnssReport {
  readonly observation: GnssObservation;
  readonly at: number;
  readonly reason: string;
}

export class GpsdWatcher {
  private socket: Socket | undefined;
  private readonly devices = new Set<string>();
  private running = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private connected = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly onReport: (report: GnssReport) => void,
  ) {}

  start(): void {
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.silenceTimer);
    this.socket?.destroy();
  }

  private connect(): void {
    const socket = createConnection({ host: this.host, port: this.port });
    this.socket = socket;
    // gpsd greets at once (VERSION, DEVICES): a connection that hangs or stays quiet is reported.
    this.expectTpv();
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      this.connected = true;
      socket.write('?WATCH={"enable":true,"json":true};\n');
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) this.line(line);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const was = this.connected;
      this.connected = false;
      this.devices.clear();
      clearTimeout(this.silenceTimer);
      if (!this.running) return;
      this.report(
        { kind: 'lost' },
        was ? `gpsd at ${this.host}:${this.port} closed` : `gpsd at ${this.host}:${this.port} unreachable`,
      );
      this.reconnectTimer = setTimeout(() => this.connect(), RECONNECT_MS);
    });
  }

  private line(line: string): void {
    let report: Record<string, unknown>;
    try {
      report = JSON.parse(line);
    } catch {
      return;
    }
    switch (report.class) {
      case 'DEVICES': {
        this.devices.clear();
        const listed = Array.isArray(report.devices) ? report.devices : [];
        for (const device of listed) {
          if (isActive(device)) this.devices.add(String(device.path));
        }
        if (this.devices.size === 0) {
          clearTimeout(this.silenceTimer);
          this.report({ kind: 'no-device' }, 'gpsd has no receiver');
        } else this.expectTpv();
        break;
      }
      case 'DEVICE': {
        const path = String(report.path);
        if (isActive(report)) {
          this.devices.add(path);
          this.expectTpv();
        } else {
          this.devices.delete(path);
          if (this.devices.size === 0) {
            clearTimeout(this.silenceTimer);
            this.report({ kind: 'no-device' }, `receiver ${path} removed`);
          }
        }
        break;
      }
      case 'TPV': {
        const mode = typeof report.mode === 'number' ? report.mode : 0;
        this.expectTpv();
        this.report({ kind: 'fix', mode }, `TPV mode ${mode}`);
        break;
      }
      default:
    }
  }

  private expectTpv(): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(
      () => this.report({ kind: 'silent' }, `no TPV from gpsd for ${SILENCE_MS / 1000} s`),
      SILENCE_MS,
    );
  }

  private report(observation: GnssObservation, reason: string): void {
    this.onReport({ observation, at: Date.now(), reason });
  }
}

/** gpsd marks a removed receiver with `activated: 0`, a present one with the time it opened. */
function isActive(device: unknown): device is { path: unknown } {
  if (typeof device !== 'object' || device === null) return false;
  const activated = (device as Record<string, unknown>).activated;
  return activated !== 0 && activated !== undefined;
}
