/**
 * SyncE's rules (agent/synce4l.ts, agent/synce-agent.ts): synce4l 1.1.1's lines as it writes them
 * (the lines Red Hat's pkg/synce/synce.go reads too), and the events the service's own rules take.
 * synce4l itself: test/agent/daemons/synce4l.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { buildSynceEvent, DNU, synceAddress } from '../../agent/synce-agent';
import { readSynce4lLine } from '../../agent/synce4l';
import { validateEvent } from '../../lib/domain/event';

describe("synce4l's lines", () => {
  it.each([
    [
      'synce4l[627685.138]: [synce4l.0.config] act on EEC_LOCKED/EEC_LOCKED_HO_ACQ for ens7f0',
      { kind: 'state', port: 'ens7f0', state: 'LOCKED' },
    ],
    [
      'synce4l[627602.540]: [synce4l.0.config] act on EEC_HOLDOVER for ens7f0',
      { kind: 'state', port: 'ens7f0', state: 'HOLDOVER' },
    ],
    [
      'synce4l[627602.540]: [synce4l.0.config] EEC_HOLDOVER on synce1',
      { kind: 'state', device: 'synce1', state: 'HOLDOVER' },
    ],
    [
      'synce4l[627602.540]: [synce4l.0.config]EEC_LOCKED/EEC_LOCKED_HO_ACQ on GNSS of synce1',
      { kind: 'state', device: 'synce1', state: 'LOCKED' },
    ],
    [
      'synce4l[754.612]: [synce-b] nothing to do for eth1 d_state 1, best_p (nil)',
      { kind: 'state', port: 'eth1', state: 'FREERUN' },
    ],
    [
      'synce4l[754.612]: [synce-b] nothing to do for eth1 d_state 0, best_p (nil)',
      { kind: 'state', port: 'eth1', state: 'FREERUN' },
    ],
    [
      'synce4l[754.612]: [synce-b] nothing to do for eth1 d_state 4, best_p (nil)',
      { kind: 'state', port: 'eth1', state: 'HOLDOVER' },
    ],
    ['synce4l[100.0]: [s] QL not received on eth1 within 5 s', { kind: 'ql-failed', port: 'eth1' }],
    ['synce4l[337.341]: [sb] created num_devices: 2', { kind: 'starting', devices: 2 }],
    [
      'synce4l[337.409]: [sb] inited num_clock_sources 1 (1 ports) for synce1',
      { kind: 'device', device: 'synce1' },
    ],
    [
      'synce4l[337.356]: [sb] clock_source eth1 added on device synce1 addr 0x5643',
      { kind: 'device', device: 'synce1', port: 'eth1' },
    ],
  ])('%s', (line, expected) => {
    expect(readSynce4lLine(line)).toEqual(expected);
  });

  it('ignores the rest: transmitted TLVs, received QLs, unknown EEC states', () => {
    for (const line of [
      'synce4l[622796.479]: [synce4l.0.config] tx_rebuild_tlv: attached new TLV, QL=0xf on ens7f0',
      'synce4l[338.397]: [sb] QL=0x2 found on slb',
      'synce4l[754.612]: [synce-b] nothing to do for eth1 d_state -1, best_p (nil)',
    ])
      expect(readSynce4lLine(line)).toBeUndefined();
  });
});

describe('the SyncE events', () => {
  const node = '/cluster-1/site-1/node-1';

  it('a lock-state per device, taken by the service at <node>/sync/synce-status/lock-state', () => {
    const event = buildSynceEvent(node, 'synceLock', 'synce1', 'HOLDOVER', '2026-11-29T03:00:00.000001Z');
    expect(event.type).toBe('event.sync.synce-status.synce-state-change');
    expect(event.data.values).toEqual([
      {
        ResourceAddress: `${node}/synce1/sync/synce-status/lock-state`,
        data_type: 'notification',
        value_type: 'enumeration',
        value: 'HOLDOVER',
      },
    ]);
    expect(() => validateEvent(event, synceAddress(node, 'synceLock'))).not.toThrow();
  });

  it('the QL and extended QL as metrics, DNU when none', () => {
    const event = buildSynceEvent(node, 'synceQuality', 'synce1', DNU, '2026-11-29T03:00:00.000001Z');
    expect(event.type).toBe('event.sync.synce-status.synce-clock-quality-change');
    expect(event.data.values.map((value) => [value.value_type, value.value])).toEqual([
      ['metric', '15'],
      ['metric', '255'],
    ]);
    expect(() => validateEvent(event, synceAddress(node, 'synceQuality'))).not.toThrow();
  });
});
