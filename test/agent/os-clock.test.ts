/**
 * The OS clock's rules (agent/states.ts, agent/chronyd.ts, agent/phc2sys.ts): chronyc's CSV and
 * phc2sys's lines as those programs write them, the holdover, the sync-state table of
 * docs/agent.md, and `--service` in both forms. The daemons themselves: test/agent/daemons.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type OsClockReport, readChronyc } from '../../agent/chronyd';
import { Phc2sysWatcher, readPhc2sysLine } from '../../agent/phc2sys';
import { ServiceClient } from '../../agent/service';
import { type LockState, osClockState, syncState } from '../../agent/states';

describe("chronyc's CSV (chrony 4.3, `chronyc -c tracking` and `-c sources`)", () => {
  const tracking =
    '0AD50001,10.213.0.1,2,1795812706.406061259,-0.000002425,-0.000000004,0.000000682,-0.014,-0.001,0.146,0.000009072,0.000001089,0.5,Normal';

  it('a selected source (`*`) is synchronised, with the system clock 2.425 µs fast as +2425 ns', () => {
    const read = readChronyc([tracking, '^,*,10.213.0.1,1,-2,377,1,0.000001742,0.000001738,0.000006318']);
    expect(read.observation).toEqual({ kind: 'synchronised', offsetNs: 2425 });
    expect(read.reason).toBe('chronyd: selected source 10.213.0.1, system clock offset 2425 ns');
  });

  it('an unreachable source (`?`), or none, is no source; the offset is still carried', () => {
    expect(
      readChronyc([tracking, '^,?,10.213.0.1,1,0,0,4,0.000001295,0.000001295,0.000005865']).observation,
    ).toEqual({ kind: 'no-source', offsetNs: 2425 });
    expect(
      readChronyc([
        '00000000,,0,0.000000000,0.000000000,0.000000000,0.000000000,0.000,0.000,0.000,1.000000000,1.000000000,0.0,Not synchronised',
      ]).observation,
    ).toEqual({ kind: 'no-source', offsetNs: 0 });
  });
});

describe("phc2sys's lines (linuxptp phc2sys.c update_clock, print.c)", () => {
  it('reads the offset and servo state of CLOCK_REALTIME, wherever the line was logged', () => {
    // -m on standard output, the journal's message (syslog), with a message_tag, linuxptp 4.x's pps.
    expect(
      readPhc2sysLine(
        'phc2sys[4268818.286]: CLOCK_REALTIME phc offset       -62 s2 freq  -78368 delay   1100',
      ),
    ).toEqual({ kind: 'synchronised', offsetNs: -62 });
    expect(
      readPhc2sysLine('[4268818.286] CLOCK_REALTIME phc offset        12 s3 freq   -3061 delay    511'),
    ).toEqual({
      kind: 'synchronised',
      offsetNs: 12,
    });
    expect(
      readPhc2sysLine(
        'phc2sys[4268818.286]: [ptp4l.0.config] CLOCK_REALTIME phc offset   -2162130 s0 freq  -78368 delay   1100',
      ),
    ).toEqual({ kind: 'unlocked', offsetNs: -2162130 });
    expect(readPhc2sysLine('phc2sys[10.5]: CLOCK_REALTIME pps offset      7 s1 freq  +12')).toEqual({
      kind: 'unlocked',
      offsetNs: 7,
    });
    // -u: the summary's largest offset is judged.
    expect(
      readPhc2sysLine(
        'phc2sys[5196755.139]: CLOCK_REALTIME rms   53 max   74 freq -16642 +/-  40 delay  1089 +/-  20',
      ),
    ).toEqual({ kind: 'synchronised', offsetNs: 74 });
  });

  it('ignores its other lines and another clock it steers', () => {
    expect(
      readPhc2sysLine('phc2sys[4268818.287]: ens5f1 phc offset       -92 s0 freq    -890 delay   2464'),
    ).toBeUndefined();
    expect(readPhc2sysLine('phc2sys[1.0]: selecting CLOCK_REALTIME for synchronization')).toBeUndefined();
    expect(readPhc2sysLine('phc2sys[1.0]: reconfiguring after port state change')).toBeUndefined();
  });

  const dir = mkdtempSync(join(tmpdir(), 'phc2sys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows a file phc2sys appends to, and reports the silence when it stops', async () => {
    const file = join(dir, 'phc2sys.log');
    writeFileSync(file, 'phc2sys[1.0]: CLOCK_REALTIME phc offset 999999 s0 freq -1 delay 1\n');
    const reports: OsClockReport[] = [];
    const watcher = new Phc2sysWatcher(file, (report) => reports.push(report));
    watcher.start();
    try {
      // tail -F starts at the end: the line written before is not news.
      await new Promise((resolve) => setTimeout(resolve, 500));
      appendFileSync(
        file,
        'phc2sys[2.0]: CLOCK_REALTIME phc offset       -40 s2 freq   -3061 delay    511\n',
      );
      await expect
        .poll(() => reports.map((r) => r.observation), { timeout: 5000 })
        .toEqual([{ kind: 'synchronised', offsetNs: -40 }]);
      await expect.poll(() => reports.at(-1)?.observation, { timeout: 6000 }).toEqual({ kind: 'no-source' });
      expect(reports.at(-1)?.reason).toBe(`phc2sys: no CLOCK_REALTIME line from ${file} for 3 s`);
    } finally {
      watcher.stop();
    }
  });
});

describe('os-clock-sync-state', () => {
  const limits = { maxOffsetNs: 100, holdoverMs: 5000 };
  const judge = (
    steps: [Parameters<typeof osClockState>[0], number][],
  ): { state: LockState; holdoverSince?: number }[] => {
    let previous: LockState | undefined;
    let since: number | undefined;
    return steps.map(([observation, now]) => {
      const judged = osClockState(observation, previous, since, now, limits);
      previous = judged.state;
      since = judged.holdoverSince;
      return judged;
    });
  };

  it('LOCKED within ±100 ns; HOLDOVER from the loss of its source for the holdover; FREERUN after', () => {
    const states = judge([
      [{ kind: 'synchronised', offsetNs: -100 }, 0],
      [{ kind: 'no-source' }, 1000],
      [{ kind: 'no-source' }, 5999],
      [{ kind: 'no-source' }, 6000],
      [{ kind: 'synchronised', offsetNs: 3 }, 7000],
    ]).map((judged) => judged.state);
    expect(states).toEqual(['LOCKED', 'HOLDOVER', 'HOLDOVER', 'FREERUN', 'LOCKED']);
  });

  it('FREERUN at once: an offset beyond the threshold, an unlocked servo, a daemon that does not answer', () => {
    for (const observation of [
      { kind: 'synchronised', offsetNs: 101 },
      { kind: 'unlocked', offsetNs: 0 },
      { kind: 'lost' },
    ] as const) {
      expect(
        judge([
          [{ kind: 'synchronised', offsetNs: 0 }, 0],
          [observation, 1],
        ]).at(-1)?.state,
      ).toBe('FREERUN');
    }
  });

  it('no holdover for a clock that was never LOCKED', () => {
    expect(judge([[{ kind: 'no-source' }, 0]])[0]?.state).toBe('FREERUN');
  });
});

describe('sync-state: the worst clock followed', () => {
  it.each([
    [{ ptp: 'LOCKED', os: 'FREERUN' }, 'FREERUN'],
    [{ ptp: 'LOCKED', os: 'HOLDOVER' }, 'HOLDOVER'],
    [{ ptp: 'HOLDOVER', os: 'LOCKED' }, 'HOLDOVER'],
    [{ os: 'LOCKED' }, 'LOCKED'],
    [{ ptp: 'LOCKED', gnss: 'FAILURE-NOFIX' }, 'HOLDOVER'],
    [{ ptp: 'FREERUN', gnss: 'SYNCHRONIZED' }, 'FREERUN'],
    [{ gnss: 'ACQUIRING-SYNC' }, 'FREERUN'],
    [{ gnss: 'SYNCHRONIZED', os: 'LOCKED' }, 'LOCKED'],
  ] as const)('%j → %s', (parts, expected) => {
    expect(syncState(parts)).toBe(expected);
  });
});

describe('--service', () => {
  it.each([
    'http://127.0.0.1:3000',
    'http://127.0.0.1:3000/',
    'http://127.0.0.1:3000/api/ocloudNotifications/v2',
    'http://127.0.0.1:3000/api/ocloudNotifications/v2/',
  ])('%s is the API at http://127.0.0.1:3000/api/ocloudNotifications/v2', (url) => {
    expect(new ServiceClient(url, { kind: 'none' }).url).toBe(
      'http://127.0.0.1:3000/api/ocloudNotifications/v2',
    );
  });

  it("keeps a stage's path before the API's own", () => {
    expect(new ServiceClient('https://gw.example/prod/', { kind: 'none' }).url).toBe(
      'https://gw.example/prod/api/ocloudNotifications/v2',
    );
  });
});
