import { describe, expect, it } from 'vitest';
import { parseTime, possiblePublisherAddresses, validateEvent, wireEvent } from '../../lib/domain/event';
import { EVENT_CATALOGUE } from '../../lib/domain/event-catalogue';
import type { BadRequestError } from '../../lib/errors';
import { badRequest } from '../support/errors';

type Obj = Record<string, unknown>;

const NODE = '/east-edge-10/site-3/node-7';
const SYNC_STATE = '/sync/sync-status/sync-state';
const SYNC_STATE_TYPE = 'event.sync.sync-status.synchronization-state-change';
const PTP_LOCK = '/sync/ptp-status/lock-state';
const PTP_LOCK_TYPE = 'event.sync.ptp-status.ptp-state-change';
const CLOCK_CLASS = '/sync/ptp-status/clock-class';
const CLOCK_CLASS_TYPE = 'event.sync.ptp-status.ptp-clock-class-change';
const UNKNOWN_TYPE = 'event.sync.custom-status.custom-state-change';
const TIME = '2021-03-05T20:59:00.999999999Z';

/** Matches `member` as a whole member name in a detail (so `data` does not match `data.version`). */
function naming(member: string): RegExp {
  const escaped = member.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.\\]])${escaped}($|[^\\w.\\[])`);
}

function expectRefused(body: unknown, publisherAddress: string, member: string): BadRequestError {
  const error = badRequest(() => validateEvent(body, publisherAddress));
  expect(error.detail).toMatch(naming(member));
  return error;
}

function value(over: Obj = {}): Obj {
  return {
    data_type: 'notification',
    ResourceAddress: `${NODE}${SYNC_STATE}`,
    value_type: 'enumeration',
    value: 'HOLDOVER',
    ...over,
  };
}

/** The example event of the OpenAPI document, with optional overrides. */
function event(over: Obj = {}, values: Obj[] = [value()]): Obj {
  return {
    id: 'A234-1234-1234',
    specversion: '1.0',
    source: SYNC_STATE,
    type: SYNC_STATE_TYPE,
    time: TIME,
    data: { version: '1.0', values },
    ...over,
  };
}

/** A `metric` value under the publisher at `source` (unknown type unless told). */
function metricEvent(v: unknown, valueType: string, type = UNKNOWN_TYPE, source = PTP_LOCK): Obj {
  return event({ type, source }, [
    value({ data_type: 'metric', value_type: valueType, value: v, ResourceAddress: `${NODE}${source}` }),
  ]);
}

const dataOf = (e: Obj): Obj => e.data as Obj;
const valueAt = (e: Obj, i = 0): Obj => (dataOf(e).values as Obj[])[i] as Obj;

describe('the event catalogue matches the O-RAN event table', () => {
  const LOCK = ['LOCKED', 'HOLDOVER', 'FREERUN'];
  const GNSS = [
    'SYNCHRONIZED',
    'ACQUIRING-SYNC',
    'ANTENNA-DISCONNECTED',
    'BOOTING',
    'ANTENNA-SHORT-CIRCUIT',
    'FAILURE-MULTIPATH',
    'FAILURE-NOFIX',
    'FAILURE-LOW-SNR',
    'FAILURE-PLL',
  ];
  const table: ReadonlyArray<readonly [string, string, string[] | undefined, [number, number] | undefined]> =
    [
      [SYNC_STATE_TYPE, SYNC_STATE, LOCK, undefined],
      [PTP_LOCK_TYPE, PTP_LOCK, LOCK, undefined],
      [
        'event.sync.sync-status.os-clock-sync-state-change',
        '/sync/sync-status/os-clock-sync-state',
        LOCK,
        undefined,
      ],
      ['event.sync.gnss-status.gnss-state-change', '/sync/gnss-status/gnss-sync-status', GNSS, undefined],
      ['event.sync.synce-status.synce-state-change', '/sync/synce-status/lock-state', LOCK, undefined],
      [CLOCK_CLASS_TYPE, CLOCK_CLASS, undefined, [0, 255]],
      [
        'event.sync.synce-status.synce-clock-quality-change',
        '/sync/synce-status/clock-quality',
        undefined,
        [0, 255],
      ],
    ];

  it('has exactly the seven types of the table', () => {
    expect(Object.keys(EVENT_CATALOGUE).sort()).toEqual(table.map(([type]) => type).sort());
  });

  it.each(table)('%s: source %s, states %j, metric range %j', (type, source, states, range) => {
    const known = EVENT_CATALOGUE[type];
    expect(known?.source).toBe(source);
    expect(known?.states ? [...known.states] : undefined).toEqual(states);
    expect(known?.metricRange ? [...known.metricRange] : undefined).toEqual(range);
  });
});

describe('validateEvent: a valid event for each catalogue type', () => {
  interface CatalogueCase {
    type: string;
    source: string;
    values: (address: string) => Obj[];
    /** The values as stored and delivered, when they differ from what the producer wrote. */
    wire?: (address: string) => Obj[];
  }
  const cases: ReadonlyArray<readonly [string, CatalogueCase]> = [
    [
      'sync-state',
      {
        type: SYNC_STATE_TYPE,
        source: SYNC_STATE,
        values: (a) => [value({ ResourceAddress: a, value: 'HOLDOVER' })],
      },
    ],
    [
      'ptp lock-state (with offset metric)',
      {
        type: PTP_LOCK_TYPE,
        source: PTP_LOCK,
        values: (a) => [
          value({ ResourceAddress: a, value: 'LOCKED' }),
          value({ ResourceAddress: a, data_type: 'metric', value_type: 'decimal64.3', value: -12.345 }),
        ],
        wire: (a) => [
          value({ ResourceAddress: a, value: 'LOCKED' }),
          value({ ResourceAddress: a, data_type: 'metric', value_type: 'decimal64.3', value: '-12.345' }),
        ],
      },
    ],
    [
      'os-clock-sync-state (with offset metric)',
      {
        type: 'event.sync.sync-status.os-clock-sync-state-change',
        source: '/sync/sync-status/os-clock-sync-state',
        values: (a) => [
          value({ ResourceAddress: a, value: 'FREERUN' }),
          value({ ResourceAddress: a, data_type: 'metric', value_type: 'decimal64.3', value: '27.000' }),
        ],
      },
    ],
    [
      'gnss-sync-status',
      {
        type: 'event.sync.gnss-status.gnss-state-change',
        source: '/sync/gnss-status/gnss-sync-status',
        values: (a) => [value({ ResourceAddress: a, value: 'SYNCHRONIZED' })],
      },
    ],
    [
      'synce lock-state',
      {
        type: 'event.sync.synce-status.synce-state-change',
        source: '/sync/synce-status/lock-state',
        values: (a) => [value({ ResourceAddress: a, value: 'LOCKED' })],
      },
    ],
    [
      'ptp clock-class',
      {
        type: CLOCK_CLASS_TYPE,
        source: CLOCK_CLASS,
        values: (a) => [value({ ResourceAddress: a, data_type: 'metric', value_type: 'metric', value: 6 })],
        wire: (a) => [
          value({ ResourceAddress: a, data_type: 'metric', value_type: 'decimal64.3', value: '6' }),
        ],
      },
    ],
    [
      'synce clock-quality',
      {
        type: 'event.sync.synce-status.synce-clock-quality-change',
        source: '/sync/synce-status/clock-quality',
        values: (a) => [value({ ResourceAddress: a, data_type: 'metric', value_type: 'metric', value: '2' })],
        wire: (a) => [
          value({ ResourceAddress: a, data_type: 'metric', value_type: 'decimal64.3', value: '2' }),
        ],
      },
    ],
  ];

  it.each(cases)('%s', (_name, c) => {
    const address = `${NODE}${c.source}`;
    const body = event({ type: c.type, source: c.source }, c.values(address));
    const result = validateEvent(structuredClone(body), address);
    expect(result.event).toStrictEqual({
      id: 'A234-1234-1234',
      specversion: '1.0',
      source: c.source,
      type: c.type,
      time: TIME,
      data: { version: '1.0', values: (c.wire ?? c.values)(address) },
    });
    expect(result.timeKey).toBe('2021-03-05T20:59:00.999999999');
  });

  it('covers every catalogue type', () => {
    expect(cases.map(([, c]) => c.type).sort()).toEqual(Object.keys(EVENT_CATALOGUE).sort());
  });

  const states: ReadonlyArray<readonly [string, string]> = Object.entries(EVENT_CATALOGUE).flatMap(
    ([type, known]) => (known.states ?? []).map((state) => [type, state] as const),
  );

  it.each(states)('%s accepts the state %s', (type, state) => {
    const source = EVENT_CATALOGUE[type]?.source ?? '';
    const body = event({ type, source }, [value({ ResourceAddress: `${NODE}${source}`, value: state })]);
    expect(valueAt(validateEvent(body, `${NODE}${source}`).event as unknown as Obj).value).toBe(state);
  });

  it('accepts a trailing slash on source and returns it normalised', () => {
    const result = validateEvent(event({ source: `${SYNC_STATE}/` }), `${NODE}${SYNC_STATE}`);
    expect(result.event.source).toBe(SYNC_STATE);
  });

  it('accepts a source that is a shorter suffix for an unknown type', () => {
    const result = validateEvent(
      event({ type: UNKNOWN_TYPE, source: '/sync-state' }),
      `${NODE}${SYNC_STATE}`,
    );
    expect(result.event.source).toBe('/sync-state');
  });

  it('accepts the example of a lock-state publisher', () => {
    const address = `${NODE}${PTP_LOCK}`;
    const body = event({ type: PTP_LOCK_TYPE, source: PTP_LOCK }, [
      value({ ResourceAddress: address, value: 'LOCKED' }),
    ]);
    expect(validateEvent(body, address).event.type).toBe(PTP_LOCK_TYPE);
  });
});

describe('validateEvent: the stored form', () => {
  const publisher = `${NODE}${SYNC_STATE}`;

  it('drops unknown members at every level without an error', () => {
    const body: Obj = {
      ...event({}, [value({ extra: 'x', unit: 'ns', ResourceAddress: `${publisher}/` })]),
      datacontenttype: 'application/json',
      subject: 'whatever',
      extension: { a: 1 },
    };
    (body.data as Obj).extra = [1, 2, 3];
    (body.data as Obj).schema = 'x';
    const result = validateEvent(body, publisher);
    expect(result.event).toStrictEqual({
      id: 'A234-1234-1234',
      specversion: '1.0',
      source: SYNC_STATE,
      type: SYNC_STATE_TYPE,
      time: TIME,
      data: {
        version: '1.0',
        values: [
          {
            ResourceAddress: publisher,
            data_type: 'notification',
            value_type: 'enumeration',
            value: 'HOLDOVER',
          },
        ],
      },
    });
    expect(Object.keys(result.event).sort()).toEqual(['data', 'id', 'source', 'specversion', 'time', 'type']);
    expect(Object.keys(result.event.data).sort()).toEqual(['values', 'version']);
    expect(Object.keys(result.event.data.values[0] ?? {}).sort()).toEqual([
      'ResourceAddress',
      'data_type',
      'value',
      'value_type',
    ]);
  });

  it.each([
    ['Time beside time', (e: Obj) => ({ ...e, Time: TIME }), '"Time" must be written time'],
    ['Data for data', (e: Obj) => ({ ...e, data: undefined, Data: e.data }), '"Data" must be written data'],
    [
      'data.Values',
      (e: Obj) => ({ ...e, data: { version: '1.0', Values: dataOf(e).values } }),
      '"data.Values" must be written data.values',
    ],
    [
      'data.values[0].resourceAddress',
      (e: Obj) => {
        const { ResourceAddress, ...rest } = valueAt(e);
        return { ...e, data: { version: '1.0', values: [{ ...rest, resourceAddress: ResourceAddress }] } };
      },
      '"data.values[0].resourceAddress" must be written data.values[0].ResourceAddress',
    ],
  ] as const)(
    'a member in the wrong case (%s) → 400 saying names are case-sensitive',
    (_name, mutate, says) => {
      const error = badRequest(() => validateEvent(mutate(event()), publisher));
      expect(error.detail).toBe(`member names are case-sensitive: ${says}`);
    },
  );

  it('normalises ResourceAddress inside values (single trailing slash removed)', () => {
    const body = event({}, [
      value({ ResourceAddress: `${publisher}/` }),
      value({ ResourceAddress: `${publisher}/ens1f0/`, value: 'LOCKED' }),
    ]);
    const values = validateEvent(body, publisher).event.data.values;
    expect(values.map((v) => v.ResourceAddress)).toEqual([publisher, `${publisher}/ens1f0`]);
  });

  it.each([
    ['the node itself', NODE],
    ['an interface of the node', `${NODE}/ens5fx/master`],
    ['the publisher itself', publisher],
    ['under the publisher', `${publisher}/ens1f0`],
    ['a sibling resource of the node', `${NODE}/sync/ptp-status/lock-state`],
  ])("accepts a value at %s: values lie on the publisher's node", (_, address) => {
    const body = event({}, [value({}), value({ ResourceAddress: address })]);
    expect(validateEvent(body, publisher).event.data.values[1]?.ResourceAddress).toBe(address);
  });

  it.each([
    ['the site above the node', '/east-edge-10/site-3'],
    ['another node', '/east-edge-10/site-3/node-8/sync/sync-status/sync-state'],
    ['another node, at an interface', '/east-edge-10/site-3/node-8/ens5fx/master'],
    ['a node whose name extends this one', '/east-edge-10/site-3/node-70/ens5fx/master'],
  ])("refuses a value at %s, naming the member and the publisher's node", (_, address) => {
    const body = event({}, [value({}), value({ ResourceAddress: address })]);
    expect(() => validateEvent(body, publisher)).toThrow(
      `data.values[1].ResourceAddress "${address}" must be on the publisher's node: at or under ${NODE} (its address ${publisher} less the source ${SYNC_STATE})`,
    );
  });

  it('keeps a publisher whose address is its source alone to values under that address', () => {
    const body = event({}, [value({ ResourceAddress: `${SYNC_STATE}/ens1f0` })]);
    expect(validateEvent(body, SYNC_STATE).event.data.values[0]?.ResourceAddress).toBe(
      `${SYNC_STATE}/ens1f0`,
    );
    expect(() => validateEvent(event({}, [value({ ResourceAddress: NODE })]), SYNC_STATE)).toThrow(
      `data.values[0].ResourceAddress "${NODE}" must be the publisher's address ${SYNC_STATE} or lie under it`,
    );
  });

  it('does not modify the body it was given', () => {
    const body = event({ extra: 1 }, [value({ ResourceAddress: `${publisher}/` })]);
    const copy = structuredClone(body);
    validateEvent(body, publisher);
    expect(body).toStrictEqual(copy);
  });

  it('keeps time as written but for the case of T and Z, which Go reads in upper case only', () => {
    const written = '2021-03-05t20:59:00.5+00:00';
    const result = validateEvent(event({ time: written }), publisher);
    expect(result.event.time).toBe('2021-03-05T20:59:00.5+00:00');
    expect(result.timeKey).toBe('2021-03-05T20:59:00.500000000');
    expect(validateEvent(event({ time: '2021-03-05T20:59:00.5z' }), publisher).event.time).toBe(
      '2021-03-05T20:59:00.5Z',
    );
  });

  it('stores a leap second as the last instant before it (Go has no second 60), keeping its order', () => {
    const result = validateEvent(event({ time: '2016-12-31T23:59:60.5Z' }), publisher);
    expect(result.event.time).toBe('2016-12-31T23:59:59.999999999Z');
    expect(result.timeKey).toBe('2016-12-31T23:59:60.500000000');
  });

  const wireForms: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ['decimal64.3 numeric string', '-12.345', 'decimal64.3', '-12.345'],
    ['decimal64.3 number', 12.5, 'decimal64.3', '12.5'],
    ['decimal64.3 negative number', -3, 'decimal64.3', '-3'],
    ['decimal64.3 integer string', '12', 'decimal64.3', '12'],
    ['decimal64.3 integer number', 0, 'decimal64.3', '0'],
    ['decimal64.3 trailing zeros string', '27.000', 'decimal64.3', '27.000'],
    ['metric numeric string', '6', 'metric', '6'],
    ['metric number', 248, 'metric', '248'],
    ['metric leading-zero string', '006', 'metric', '006'],
  ];

  it.each(wireForms)(
    'stores a %s as a decimal64.3 string (O-RAN: the string representation; sdk-go reads no number)',
    (_name, v, valueType, stored) => {
      const result = validateEvent(metricEvent(v, valueType), `${NODE}${PTP_LOCK}`);
      expect(result.event.data.values[0]).toStrictEqual({
        ResourceAddress: `${NODE}${PTP_LOCK}`,
        data_type: 'metric',
        value_type: 'decimal64.3',
        value: stored,
      });
    },
  );
});

describe('wireEvent: events stored or queued before the wire form', () => {
  const old = {
    id: 'old-1',
    specversion: '1.0' as const,
    source: CLOCK_CLASS,
    type: CLOCK_CLASS_TYPE,
    time: '2016-12-31t23:59:60z',
    data: {
      version: '1.0',
      values: [
        {
          ResourceAddress: `${NODE}${CLOCK_CLASS}`,
          data_type: 'metric' as const,
          value_type: 'metric',
          value: 248,
        },
        {
          ResourceAddress: `${NODE}${CLOCK_CLASS}`,
          data_type: 'metric' as const,
          value_type: 'decimal64.3',
          value: -3.5,
        },
        {
          ResourceAddress: `${NODE}${CLOCK_CLASS}`,
          data_type: 'notification' as const,
          value_type: 'enumeration',
          value: 'LOCKED',
        },
        {
          ResourceAddress: `${NODE}${CLOCK_CLASS}`,
          data_type: 'notification' as const,
          value_type: 'x-vendor',
          value: 7,
        },
      ],
    },
  };

  it('turns numbers into strings and metric into decimal64.3, and mends the time; other value types stay', () => {
    expect(wireEvent(old)).toStrictEqual({
      ...old,
      time: '2016-12-31T23:59:59.999999999Z',
      data: {
        version: '1.0',
        values: [
          { ...old.data.values[0], value_type: 'decimal64.3', value: '248' },
          { ...old.data.values[1], value: '-3.5' },
          old.data.values[2],
          old.data.values[3],
        ],
      },
    });
  });

  it('leaves an event already in the wire form as it is', () => {
    const stored = validateEvent({ ...structuredClone(old), type: UNKNOWN_TYPE }, `${NODE}${CLOCK_CLASS}`);
    expect(stored.event.data.values[3]).toStrictEqual(old.data.values[3]);
    expect(wireEvent(stored.event)).toStrictEqual(stored.event);
  });
});

describe('validateEvent: required members', () => {
  const publisher = `${NODE}${SYNC_STATE}`;

  const bodies: ReadonlyArray<readonly [string, unknown]> = [
    ['null', null],
    ['undefined', undefined],
    ['an array', [event()]],
    ['a string', JSON.stringify(event())],
    ['a number', 1],
  ];

  it.each(bodies)('refuses a body that is %s', (_name, body) => {
    const error = badRequest(() => validateEvent(body, publisher));
    expect(error.detail).toMatch(/body/);
  });

  const remove =
    (...path: (string | number)[]) =>
    (e: Obj): void => {
      let target: Obj = e;
      for (const key of path.slice(0, -1)) target = target[key] as Obj;
      delete target[path[path.length - 1] as string];
    };
  const set =
    (newValue: unknown, ...path: (string | number)[]) =>
    (e: Obj): void => {
      let target: Obj = e;
      for (const key of path.slice(0, -1)) target = target[key] as Obj;
      target[path[path.length - 1] as string] = newValue;
    };
  const V0 = ['data', 'values', 0] as const;

  const cases: ReadonlyArray<readonly [string, (e: Obj) => void, string]> = [
    ['id missing', remove('id'), 'id'],
    ['id null', set(null, 'id'), 'id'],
    ['id a number', set(1234, 'id'), 'id'],
    ['id empty', set('', 'id'), 'id'],
    ['id an object', set({ id: 'x' }, 'id'), 'id'],
    ['specversion missing', remove('specversion'), 'specversion'],
    ['specversion a number', set(1.0, 'specversion'), 'specversion'],
    ['specversion "1"', set('1', 'specversion'), 'specversion'],
    ['specversion "2.0"', set('2.0', 'specversion'), 'specversion'],
    ['specversion "1.0 "', set('1.0 ', 'specversion'), 'specversion'],
    ['specversion "v1.0"', set('v1.0', 'specversion'), 'specversion'],
    ['specversion empty', set('', 'specversion'), 'specversion'],
    ['source missing', remove('source'), 'source'],
    ['source a number', set(1, 'source'), 'source'],
    ['source empty', set('', 'source'), 'source'],
    ['source without leading slash', set('sync/sync-status/sync-state', 'source'), 'source'],
    ['source with a wildcard', set('/sync/*/sync-state', 'source'), 'source'],
    ['source with an empty segment', set('/sync//sync-state', 'source'), 'source'],
    ['source not a suffix of the publisher address', set(PTP_LOCK, 'source'), 'source'],
    ['source a partial last segment', set('/state', 'source'), 'source'],
    ['source a partial inner segment', set('/status/sync-state', 'source'), 'source'],
    ['source longer than the publisher address', set(`/cloud${NODE}${SYNC_STATE}`, 'source'), 'source'],
    ['type missing', remove('type'), 'type'],
    ['type a number', set(7, 'type'), 'type'],
    ['type empty', set('', 'type'), 'type'],
    ['type without event prefix', set('sync.sync-status.synchronization-state-change', 'type'), 'type'],
    ['type with another prefix', set('com.example.sync.state-change', 'type'), 'type'],
    ['type with capital Event', set('Event.sync.sync-status.synchronization-state-change', 'type'), 'type'],
    ['type with too few parts', set('event.sync.state-change', 'type'), 'type'],
    ['type with only area', set('event.sync', 'type'), 'type'],
    ['type just "event"', set('event', 'type'), 'type'],
    ['type with an empty part', set('event.sync..synchronization-state-change', 'type'), 'type'],
    ['type with a trailing dot', set(`${SYNC_STATE_TYPE}.`, 'type'), 'type'],
    ['type with a space', set('event.sync.sync status.state-change', 'type'), 'type'],
    ['type with a slash', set('event.sync/sync-status.x.state-change', 'type'), 'type'],
    ['time missing', remove('time'), 'time'],
    ['time a number', set(1614977940, 'time'), 'time'],
    ['time empty', set('', 'time'), 'time'],
    ['time not a timestamp', set('yesterday', 'time'), 'time'],
    ['time with an offset', set('2021-03-05T20:59:00+01:00', 'time'), 'time'],
    ['data missing', remove('data'), 'data'],
    ['data null', set(null, 'data'), 'data'],
    ['data an array', set([], 'data'), 'data'],
    ['data a string', set('{}', 'data'), 'data'],
    ['data.version missing', remove('data', 'version'), 'data.version'],
    ['data.version a number', set(1.0, 'data', 'version'), 'data.version'],
    ['data.version empty', set('', 'data', 'version'), 'data.version'],
    ['data.values missing', remove('data', 'values'), 'data.values'],
    ['data.values empty', set([], 'data', 'values'), 'data.values'],
    ['data.values an object', set({ 0: value() }, 'data', 'values'), 'data.values'],
    ['data.values a value object', set(value(), 'data', 'values'), 'data.values'],
    ['data.values null', set(null, 'data', 'values'), 'data.values'],
    ['data.values[0] a string', set('HOLDOVER', ...V0), 'data.values[0]'],
    ['data.values[0] null', set(null, ...V0), 'data.values[0]'],
    ['data.values[0] an array', set([value()], ...V0), 'data.values[0]'],
    ['ResourceAddress missing', remove(...V0, 'ResourceAddress'), 'data.values[0].ResourceAddress'],
    ['ResourceAddress a number', set(7, ...V0, 'ResourceAddress'), 'data.values[0].ResourceAddress'],
    ['ResourceAddress empty', set('', ...V0, 'ResourceAddress'), 'data.values[0].ResourceAddress'],
    [
      'ResourceAddress relative',
      set('node-7/sync', ...V0, 'ResourceAddress'),
      'data.values[0].ResourceAddress',
    ],
    [
      'ResourceAddress with a dot segment',
      set('/a/../b', ...V0, 'ResourceAddress'),
      'data.values[0].ResourceAddress',
    ],
    [
      'resourceAddress in the wrong case',
      (e) => {
        const v = valueAt(e);
        v.resourceAddress = v.ResourceAddress;
        delete v.ResourceAddress;
      },
      'data.values[0].ResourceAddress',
    ],
    ['data_type missing', remove(...V0, 'data_type'), 'data.values[0].data_type'],
    ['data_type unknown', set('event', ...V0, 'data_type'), 'data.values[0].data_type'],
    ['data_type in capitals', set('Notification', ...V0, 'data_type'), 'data.values[0].data_type'],
    ['data_type a number', set(1, ...V0, 'data_type'), 'data.values[0].data_type'],
    ['value_type missing', remove(...V0, 'value_type'), 'data.values[0].value_type'],
    ['value_type a number', set(1, ...V0, 'value_type'), 'data.values[0].value_type'],
    ['value_type empty', set('', ...V0, 'value_type'), 'data.values[0].value_type'],
    ['value missing', remove(...V0, 'value'), 'data.values[0].value'],
    ['value null', set(null, ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value a number', set(1, ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value an object', set({ state: 'LOCKED' }, ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value an array', set(['LOCKED'], ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value not a catalogue state', set('UNLOCKED', ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value in lower case', set('holdover', ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value a GNSS state', set('SYNCHRONIZED', ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value with a space', set('LOCKED ', ...V0, 'value'), 'data.values[0].value'],
    ['enumeration value empty', set('', ...V0, 'value'), 'data.values[0].value'],
    [
      'the second value invalid',
      (e) => {
        (dataOf(e).values as Obj[]).push(value({ data_type: 'gauge' }));
      },
      'data.values[1].data_type',
    ],
    [
      'the second value with a wrong state',
      (e) => {
        (dataOf(e).values as Obj[]).push(value({ value: 'BOOTING' }));
      },
      'data.values[1].value',
    ],
  ];

  it.each(cases)('%s → 400 naming %s', (_name, mutate, member) => {
    const body = event();
    mutate(body);
    expectRefused(body, publisher, member);
  });

  it('says the specversion must be "1.0"', () => {
    expect(expectRefused(event({ specversion: '2.0' }), publisher, 'specversion').detail).toContain('1.0');
  });

  it('says what form type must have', () => {
    const error = expectRefused(event({ type: 'event.sync' }), publisher, 'type');
    expect(error.detail).toContain('event.<area>.<path>.<change-name>');
  });

  it('says a wildcard in a value address is not supported', () => {
    const error = expectRefused(
      event({}, [value({ ResourceAddress: `${NODE}/sync/*` })]),
      publisher,
      'data.values[0].ResourceAddress',
    );
    expect(error.detail.toLowerCase()).toContain('wildcard');
  });

  it('lists the allowed states when an enumeration value is not one of them', () => {
    const error = expectRefused(event({}, [value({ value: 'UNLOCKED' })]), publisher, 'data.values[0].value');
    expect(error.detail).toContain('LOCKED');
    expect(error.detail).toContain('FREERUN');
  });

  it('refuses a GNSS state for a lock-state type and a lock state for the GNSS type', () => {
    const gnss = '/sync/gnss-status/gnss-sync-status';
    expectRefused(
      event({ type: 'event.sync.gnss-status.gnss-state-change', source: gnss }, [
        value({ ResourceAddress: `${NODE}${gnss}`, value: 'LOCKED' }),
      ]),
      `${NODE}${gnss}`,
      'data.values[0].value',
    );
    expectRefused(
      event({ type: PTP_LOCK_TYPE, source: PTP_LOCK }, [
        value({ ResourceAddress: `${NODE}${PTP_LOCK}`, value: 'ANTENNA-DISCONNECTED' }),
      ]),
      `${NODE}${PTP_LOCK}`,
      'data.values[0].value',
    );
  });

  const wrongSources: ReadonlyArray<readonly [string, string]> = [
    // [type, source that is a suffix of the publisher address but not the catalogue's]
    [SYNC_STATE_TYPE, PTP_LOCK],
    [PTP_LOCK_TYPE, '/sync/synce-status/lock-state'],
    [PTP_LOCK_TYPE, '/lock-state'],
    ['event.sync.synce-status.synce-state-change', PTP_LOCK],
    [CLOCK_CLASS_TYPE, PTP_LOCK],
    ['event.sync.gnss-status.gnss-state-change', '/sync/gnss-status/gnss-state'],
  ];

  it.each(wrongSources)('refuses the known type %s with the source %s', (type, source) => {
    const address = `${NODE}${source}`;
    const body = event({ type, source }, [value({ ResourceAddress: address, value: 'LOCKED' })]);
    const error = expectRefused(body, address, 'source');
    expect(error.detail).toContain(EVENT_CATALOGUE[type]?.source ?? '<catalogue source>');
  });
});

describe('validateEvent: value types', () => {
  const publisher = `${NODE}${PTP_LOCK}`;

  const decimals: ReadonlyArray<readonly [unknown, boolean]> = [
    ['-12.345', true],
    [12.5, true],
    ['12.5', true],
    [-12.345, true],
    [0, true],
    ['0', true],
    ['-0.001', true],
    [1.1, true],
    ['1.12', true],
    ['123456789', true],
    [123456789, true],
    ['12.3456', false],
    [12.3456, false],
    ['-0.0001', false],
    ['abc', false],
    ['', false],
    ['12.', false],
    ['.5', false],
    ['+1.5', false],
    ['1e3', false],
    [1e21, false],
    [' 12.5', false],
    ['12,5', false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
    [true, false],
    [{ value: 1 }, false],
    [[1], false],
  ];

  it.each(decimals)('decimal64.3 value %j → accepted: %s', (v, accepted) => {
    const body = metricEvent(v, 'decimal64.3');
    if (accepted) {
      expect(validateEvent(body, publisher).event.data.values[0]?.value).toBe(String(v));
    } else {
      expectRefused(body, publisher, 'data.values[0].value');
    }
  });

  it('checks decimal64.3 for a known type too (ptp lock-state offset)', () => {
    const body = event({ type: PTP_LOCK_TYPE, source: PTP_LOCK }, [
      value({ ResourceAddress: publisher, value: 'LOCKED' }),
      value({ ResourceAddress: publisher, data_type: 'metric', value_type: 'decimal64.3', value: '1.2345' }),
    ]);
    expectRefused(body, publisher, 'data.values[1].value');
  });

  const metrics: ReadonlyArray<readonly [unknown, boolean]> = [
    ['6', true],
    [248, true],
    [0, true],
    ['0', true],
    [255, true],
    ['255', true],
    [256, true], // no range outside the catalogue's clock types
    [-1, false],
    ['-1', false],
    [1.5, false],
    ['1.5', false],
    ['abc', false],
    ['', false],
    ['1e2', false],
    ['+6', false],
    [' 6', false],
    [Number.NaN, false],
    [true, false],
    [[6], false],
  ];

  it.each(metrics)('metric value %j for an unknown type → accepted: %s', (v, accepted) => {
    const body = metricEvent(v, 'metric');
    if (accepted) {
      expect(validateEvent(body, publisher).event.data.values[0]?.value).toBe(String(v));
    } else {
      expectRefused(body, publisher, 'data.values[0].value');
    }
  });

  const clockTypes: ReadonlyArray<readonly [string, string]> = [
    [CLOCK_CLASS_TYPE, CLOCK_CLASS],
    ['event.sync.synce-status.synce-clock-quality-change', '/sync/synce-status/clock-quality'],
  ];
  const clockValues: ReadonlyArray<readonly [unknown, boolean]> = [
    [6, true],
    ['6', true],
    [7, true],
    [135, true],
    [248, true],
    ['248', true],
    [255, true],
    [0, true],
    [256, false],
    ['256', false],
    [1000, false],
    [-1, false],
    [1.5, false],
    ['abc', false],
  ];
  const clockCases = clockTypes.flatMap(([type, source]) =>
    clockValues.map(([v, accepted]) => [type, source, v, accepted] as const),
  );

  it.each(clockCases)('%s (%s) metric value %j → accepted: %s', (type, source, v, accepted) => {
    const body = metricEvent(v, 'metric', type, source);
    const address = `${NODE}${source}`;
    if (accepted) {
      expect(validateEvent(body, address).event.data.values[0]?.value).toBe(String(v));
    } else {
      expectRefused(body, address, 'data.values[0].value');
    }
  });

  it.each(clockTypes)(
    '%s checks the range of a decimal64.3 value too (as Red Hat publishes it)',
    (type, source) => {
      const address = `${NODE}${source}`;
      expect(
        validateEvent(metricEvent('248', 'decimal64.3', type, source), address).event.data.values[0]?.value,
      ).toBe('248');
      expectRefused(metricEvent(256, 'decimal64.3', type, source), address, 'data.values[0].value');
    },
  );

  const unchecked: ReadonlyArray<readonly [string, unknown]> = [
    ['string', 'anything at all'],
    ['boolean', true],
    ['decimal64.2', 'not a number'],
    ['int32', -5],
    ['Enumeration', 42],
    ['x-vendor', { nested: [1, 2] }],
    ['list', []],
  ];

  it.each(unchecked)('an unknown value_type %s passes unchecked (value %j)', (valueType, v) => {
    const body = event({ type: UNKNOWN_TYPE }, [value({ value_type: valueType, value: v })]);
    const stored = validateEvent(body, `${NODE}${SYNC_STATE}`).event.data.values[0];
    expect(stored?.value_type).toBe(valueType);
    expect(stored?.value).toStrictEqual(v);
  });

  it('refuses, for a catalogue type, a value_type its consumers cannot read, saying which to write', () => {
    const body = event({}, [value({ value_type: 'string', value: 'not a state' })]);
    const error = badRequest(() => validateEvent(body, `${NODE}${SYNC_STATE}`));
    expect(error.detail).toBe(
      `data.values[0].value_type "string" is not one consumers of type ${SYNC_STATE_TYPE} can read: write enumeration (a state, as a string) or decimal64.3 (a number; metric is taken as decimal64.3)`,
    );
  });
});

describe('validateEvent: unknown types of the right form', () => {
  const publisher = `${NODE}${PTP_LOCK}`;
  const types = [
    UNKNOWN_TYPE,
    'event.sync.ptp-status.ptp-new-change',
    'event.a.b.c',
    'event.a.b.c.d.e',
    'event.Sync.PTP_status.x-1',
    'event.0.1.2',
  ];
  const sources = [PTP_LOCK, '/ptp-status/lock-state', '/lock-state', publisher, `${publisher}/`];
  const cases = types.flatMap((type) => sources.map((source) => [type, source] as const));

  it.each(cases)('%s is accepted with the suffix source %s', (type, source) => {
    const body = event({ type, source }, [value({ ResourceAddress: publisher, value: 'ANY-STATE-AT-ALL' })]);
    const result = validateEvent(body, publisher);
    expect(result.event.type).toBe(type);
    expect(publisher.endsWith(result.event.source)).toBe(true);
    expect(result.event.data.values[0]?.value).toBe('ANY-STATE-AT-ALL');
  });

  it.each(types)('%s is refused with a source that is not a suffix', (type) => {
    const body = event({ type, source: SYNC_STATE }, [value({ ResourceAddress: publisher })]);
    expectRefused(body, publisher, 'source');
  });

  it('still requires the enumeration value to be a string', () => {
    const body = event({ type: UNKNOWN_TYPE, source: PTP_LOCK }, [
      value({ ResourceAddress: publisher, value: 3 }),
    ]);
    expectRefused(body, publisher, 'data.values[0].value');
  });
});

describe('parseTime and the time member', () => {
  const accepted: ReadonlyArray<readonly [string, string]> = [
    ['2021-03-05T20:59:00.999999999Z', '2021-03-05T20:59:00.999999999'],
    ['2021-03-05T20:59:00Z', '2021-03-05T20:59:00.000000000'],
    ['2021-03-05T20:59:00+00:00', '2021-03-05T20:59:00.000000000'],
    ['2021-03-05T20:59:00.123+00:00', '2021-03-05T20:59:00.123000000'],
    ['2021-03-05T20:59:00.5Z', '2021-03-05T20:59:00.500000000'],
    ['2021-03-05T20:59:00.000000001Z', '2021-03-05T20:59:00.000000001'],
    ['2021-03-05t20:59:00z', '2021-03-05T20:59:00.000000000'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000000000'],
    ['9999-12-31T23:59:59.999999999Z', '9999-12-31T23:59:59.999999999'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000000000'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000000000'],
    ['2021-01-31T00:00:00Z', '2021-01-31T00:00:00.000000000'],
    ['2021-04-30T00:00:00Z', '2021-04-30T00:00:00.000000000'],
    ['2021-12-31T23:59:60Z', '2021-12-31T23:59:60.000000000'], // leap second (RFC 3339 allows 60)
  ];

  it.each(accepted)('accepts %s (key %s)', (time, key) => {
    expect(parseTime(time)).toBe(key);
    expect(validateEvent(event({ time }), `${NODE}${SYNC_STATE}`).timeKey).toBe(key);
  });

  // RFC 3339 Appendix C: a year divisible by 400 is a leap year, and 0000 is a valid date-fullyear.
  it('accepts 29 February of the year 0000 (a leap year)', () => {
    expect(parseTime('0000-02-29T00:00:00Z')).toBe('0000-02-29T00:00:00.000000000');
  });

  const refused: ReadonlyArray<readonly [string, string]> = [
    ['an offset of +01:00', '2021-03-05T20:59:00+01:00'],
    ['an offset of -05:00', '2021-03-05T20:59:00-05:00'],
    ['the unknown offset -00:00', '2021-03-05T20:59:00-00:00'],
    ['an offset without colon', '2021-03-05T20:59:00+0000'],
    ['no zone', '2021-03-05T20:59:00'],
    ['no zone with fraction', '2021-03-05T20:59:00.999999999'],
    ['30 February', '2021-02-30T20:59:00Z'],
    ['29 February of a common year', '2021-02-29T20:59:00Z'],
    ['29 February 1900', '1900-02-29T20:59:00Z'],
    ['31 April', '2021-04-31T20:59:00Z'],
    ['32 January', '2021-01-32T20:59:00Z'],
    ['month 13', '2021-13-05T20:59:00Z'],
    ['month 00', '2021-00-05T20:59:00Z'],
    ['day 00', '2021-03-00T20:59:00Z'],
    ['hour 24', '2021-03-05T24:00:00Z'],
    ['minute 60', '2021-03-05T20:60:00Z'],
    ['second 61', '2021-03-05T20:59:61Z'],
    ['10 fraction digits', '2021-03-05T20:59:00.9999999999Z'],
    ['a dot without fraction digits', '2021-03-05T20:59:00.Z'],
    ['a comma for the fraction', '2021-03-05T20:59:00,5Z'],
    ['no seconds', '2021-03-05T20:59Z'],
    ['date only', '2021-03-05'],
    ['one-digit month and day', '2021-3-5T20:59:00Z'],
    ['a two-digit year', '21-03-05T20:59:00Z'],
    ['a space for T', '2021-03-05 20:59:00Z'],
    ['surrounding spaces', ' 2021-03-05T20:59:00Z '],
    ['a trailing newline', '2021-03-05T20:59:00Z\n'],
    ['Unix seconds as a string', '1614977940'],
    ['an HTTP date', 'Fri, 05 Mar 2021 20:59:00 GMT'],
    ['empty', ''],
  ];

  it.each(refused)('parseTime refuses %s: %j', (_name, time) => {
    const error = badRequest(() => parseTime(time));
    expect(error.detail).toMatch(naming('time'));
  });

  it.each(refused)('validateEvent refuses %s naming time', (_name, time) => {
    expectRefused(event({ time }), `${NODE}${SYNC_STATE}`, 'time');
  });

  const chronological = [
    '1999-12-31T23:59:59.999999999Z',
    '2021-03-05T20:58:59Z',
    '2021-03-05T20:59:00Z',
    '2021-03-05T20:59:00.000000001Z',
    '2021-03-05T20:59:00.000001+00:00',
    '2021-03-05T20:59:00.001Z',
    '2021-03-05T20:59:00.09Z',
    '2021-03-05T20:59:00.10Z', // 100 ms
    '2021-03-05T20:59:00.5+00:00',
    '2021-03-05T20:59:00.9Z', // 900 ms
    '2021-03-05T20:59:00.999999999Z',
    '2021-03-05T20:59:01Z',
    '2021-03-05T20:59:10Z',
    '2021-03-05T21:00:00Z',
    '2021-03-06T00:00:00Z',
    '2021-10-01T00:00:00Z',
    '2021-12-31T23:59:59Z',
    '2021-12-31T23:59:60Z',
    '2022-01-01T00:00:00Z',
    '2100-01-01T00:00:00Z',
  ];

  it('produces keys that sort chronologically', () => {
    const keys = chronological.map(parseTime);
    const shuffled = [...keys].reverse().sort();
    expect(shuffled).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(chronological.slice(1).map((later, i) => [chronological[i] as string, later] as const))(
    '%s sorts before %s',
    (earlier, later) => {
      expect(parseTime(earlier) < parseTime(later)).toBe(true);
    },
  );

  it('puts .10 (100 ms) before .9 (900 ms)', () => {
    expect(parseTime('2021-03-05T20:59:00.10Z') < parseTime('2021-03-05T20:59:00.9Z')).toBe(true);
  });

  it('gives keys of one fixed width', () => {
    const widths = new Set(chronological.map((t) => parseTime(t).length));
    expect([...widths]).toEqual(['2021-03-05T20:59:00.000000000'.length]);
  });

  const sameInstant: ReadonlyArray<readonly string[]> = [
    [
      '2021-03-05T20:59:00.5Z',
      '2021-03-05T20:59:00.500000000Z',
      '2021-03-05T20:59:00.50+00:00',
      '2021-03-05t20:59:00.500z',
    ],
    [
      '2021-03-05T20:59:00Z',
      '2021-03-05T20:59:00.0Z',
      '2021-03-05T20:59:00.000000000Z',
      '2021-03-05T20:59:00+00:00',
    ],
    ['2021-03-05T20:59:00.123456Z', '2021-03-05T20:59:00.123456000Z', '2021-03-05T20:59:00.1234560+00:00'],
  ];

  it.each(sameInstant)('gives equal keys for the same instant written differently: %s', (...times) => {
    const keys = new Set(times.map(parseTime));
    expect(keys.size).toBe(1);
  });
});

describe('possiblePublisherAddresses: a node at or above every value, followed by the source', () => {
  const values = (...addresses: string[]) =>
    addresses.map(
      (ResourceAddress) =>
        ({ ResourceAddress, data_type: 'notification', value_type: 'x', value: 1 }) as const,
    );

  it('is every ancestor of the deepest address all values share, with the source appended', () => {
    expect(possiblePublisherAddresses(values('/c/n/ens5fx/master', '/c/n/ens5fx/master'), '/sync/x')).toEqual(
      ['/c/sync/x', '/c/n/sync/x', '/c/n/ens5fx/sync/x', '/c/n/ens5fx/master/sync/x'],
    );
  });

  it('includes the source alone when every value lies under it', () => {
    expect(possiblePublisherAddresses(values('/sync/x/a', '/sync/x'), '/sync/x')).toEqual([
      '/sync/sync/x',
      '/sync/x/sync/x',
      '/sync/x',
    ]);
  });

  it('compares whole segments, and is empty when the values share no node', () => {
    expect(possiblePublisherAddresses(values('/c/s/n-1', '/c/s/n-10'), '/r')).toEqual(['/c/r', '/c/s/r']);
    expect(possiblePublisherAddresses(values('/a/n', '/b/n'), '/r')).toEqual([]);
  });
});
