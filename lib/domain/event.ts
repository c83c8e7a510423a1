import { BadRequestError } from '../errors';
import { EVENT_CATALOGUE } from './event-catalogue';
import { requireExactMemberNames } from './member-names';
import {
  isAtOrUnder,
  isResourceSuffix,
  normaliseResourceAddress,
  selfAndAncestors,
} from './resource-address';

/** An event in the O-Cloud JSON encoding (the OpenAPI document's Event schema), as stored and delivered. */
export interface NotificationEvent {
  readonly id: string;
  readonly specversion: '1.0';
  readonly source: string;
  readonly type: string;
  readonly time: string;
  readonly data: {
    readonly version: string;
    readonly values: readonly EventValue[];
  };
}

export interface EventValue {
  readonly ResourceAddress: string;
  readonly data_type: 'notification' | 'metric';
  readonly value_type: string;
  readonly value: unknown;
}

export interface ValidatedEvent {
  readonly event: NotificationEvent;
  /** `time` as a fixed-width string that sorts in time order (nanosecond precision, UTC). */
  readonly timeKey: string;
}

const MAX_ID_LENGTH = 256;
const MAX_VALUES = 64;
const TYPE_FORM = /^event(\.[A-Za-z0-9][A-Za-z0-9_-]*){3,}$/;
const RFC3339_UTC = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|\+00:00)$/;
/** The members the rules below read; a case variant of one of them is named in the 400. */
const EVENT_MEMBERS = ['specversion', 'id', 'source', 'type', 'time', 'data'] as const;
const DATA_MEMBERS = ['version', 'values'] as const;
const VALUE_MEMBERS = ['ResourceAddress', 'data_type', 'value_type', 'value'] as const;
const DECIMAL_3 = /^-?\d+(\.\d{1,3})?$/;
/** The value types sdk-go's reader knows besides `redfish-event` (its `pkg/event/event_data.go`). */
const SDK_GO_VALUE_TYPES: readonly string[] = ['enumeration', 'decimal64.3'];
const UNSIGNED_INTEGER = /^\d+$/;

/**
 * Checks an event a publisher sends and builds the stored form, which is the wire form (see
 * `wireEvent`): known members only, addresses normalised. `publisherAddress` must end with `source`;
 * when it is not known yet, the store checks that as it accepts the event.
 */
export function validateEvent(body: unknown, publisherAddress?: string): ValidatedEvent {
  const input = object(body, 'the request body');
  requireExactMemberNames(input, EVENT_MEMBERS);
  const id = nonEmptyString(input.id, 'id');
  if (id.length > MAX_ID_LENGTH) throw bad(`id is longer than ${MAX_ID_LENGTH} characters`);
  if (input.specversion !== '1.0') throw bad('specversion must be the string "1.0"');
  const source = normaliseResourceAddress(input.source, 'source');
  const type = nonEmptyString(input.type, 'type');
  if (!TYPE_FORM.test(type)) throw bad(`type "${type}" must have the form event.<area>.<path>.<change-name>`);
  const time = nonEmptyString(input.time, 'time');
  const timeKey = parseTime(time);
  const data = object(input.data, 'data');
  requireExactMemberNames(data, DATA_MEMBERS, 'data.');
  const version = nonEmptyString(data.version, 'data.version');
  if (!Array.isArray(data.values) || data.values.length === 0) {
    throw bad('data.values must be a non-empty array');
  }
  if (data.values.length > MAX_VALUES) throw bad(`data.values has more than ${MAX_VALUES} entries`);
  const values = data.values.map((value: unknown, i: number) => validateValue(value, `data.values[${i}]`));

  const known = EVENT_CATALOGUE[type];
  if (known) {
    if (source !== known.source) throw bad(`source must be ${known.source} for type ${type}`);
    values.forEach((value, i) => {
      if (!SDK_GO_VALUE_TYPES.includes(value.value_type)) {
        throw bad(
          `data.values[${i}].value_type "${value.value_type}" is not one consumers of type ${type} can read: write enumeration (a state, as a string) or decimal64.3 (a number; metric is taken as decimal64.3)`,
        );
      }
      if (value.value_type === 'enumeration' && known.states && !known.states.includes(String(value.value))) {
        throw bad(`data.values[${i}].value must be one of ${known.states.join(', ')} for type ${type}`);
      }
      if (value.value_type === 'decimal64.3' && known.metricRange) {
        const [min, max] = known.metricRange;
        const n = Number(value.value);
        if (n < min || n > max)
          throw bad(`data.values[${i}].value must be between ${min} and ${max} for type ${type}`);
      }
    });
  }

  // Last, so that an existing publisher's event gets the same 400 whether this instance knew its
  // address beforehand or the store checked the source.
  if (publisherAddress !== undefined) {
    checkSource(source, publisherAddress);
    checkValuesOnNode(values, publisherAddress, source);
  }
  return {
    event: { id, specversion: '1.0', source, type, time: wireTime(time), data: { version, values } },
    timeKey,
  };
}

/**
 * The form in which events are delivered and served, which Red Hat's consumer library (sdk-go,
 * `pkg/event/event_unmarshal.go` `readDataValue`, and Go's `time.Parse` for `time`) reads: every
 * `enumeration` and `decimal64.3` value a JSON string, no value type it does not know (`metric` goes
 * out as `decimal64.3`), `time` with an upper-case `T` and `Z` and no second 60. Accepted events are
 * stored in this form; events stored or queued before it was the rule are put in it as they are read.
 */
export function wireEvent(event: NotificationEvent): NotificationEvent {
  return {
    ...event,
    time: wireTime(event.time),
    data: { ...event.data, values: event.data.values.map(wireValue) },
  };
}

/** O-RAN's `value` is the string representation of the value in its `value_type`. */
function wireValue(value: EventValue): EventValue {
  if (value.value_type === 'metric')
    return { ...value, value_type: 'decimal64.3', value: String(value.value) };
  if (value.value_type === 'decimal64.3' && typeof value.value !== 'string')
    return { ...value, value: String(value.value) };
  return value;
}

/** Go has no leap second: 23:59:60 becomes the last instant before it, which keeps the order of events. */
function wireTime(time: string): string {
  return time.toUpperCase().replace(/^(.{17})60(\.\d*)?/, '$159.999999999');
}

/** Contract 5: the publisher's address must end with `source`, in whole segments. */
function checkSource(source: string, publisherAddress: string): void {
  if (!isResourceSuffix(source, publisherAddress)) throw wrongSource(source, publisherAddress);
}

/**
 * The part of a publisher's address that names its node: the address less the event's `source`
 * (`/c/s/n` for `/c/s/n/sync/ptp-status/lock-state` and `/sync/ptp-status/lock-state`), or the
 * whole address when it is nothing but the source. `source` is one of the address's suffixes.
 */
function nodeOf(publisherAddress: string, source: string): string {
  return publisherAddress.length > source.length
    ? publisherAddress.slice(0, -source.length)
    : publisherAddress;
}

/**
 * A publisher speaks for its own node only: every value's address is at or under the node part of
 * the publisher's address. Interface-level addresses are allowed (Red Hat's agents publish
 * `/c/n/ens5fx/master` under `/c/n/sync/ptp-status/lock-state`); another node's are not.
 */
function checkValuesOnNode(values: readonly EventValue[], publisherAddress: string, source: string): void {
  const node = nodeOf(publisherAddress, source);
  values.forEach((value, i) => {
    if (!isAtOrUnder(value.ResourceAddress, node)) throw valueOutside(i, value, publisherAddress, source);
  });
}

/**
 * The addresses a publisher of these values may have: a node at or above every value's address
 * followed by `source`, or `source` alone when every value lies under it (the store checks the
 * publisher's address is one of them when it does not know it beforehand).
 */
export function possiblePublisherAddresses(values: readonly EventValue[], source: string): string[] {
  const [first, ...rest] = values;
  if (!first) return [];
  const nodes = selfAndAncestors(first.ResourceAddress).filter((candidate) =>
    rest.every((value) => isAtOrUnder(value.ResourceAddress, candidate)),
  );
  const addresses = nodes.map((node) => `${node}${source}`);
  if (values.every((value) => isAtOrUnder(value.ResourceAddress, source))) addresses.push(source);
  return addresses;
}

/** The first value outside the publisher's node, as the 400 to answer. */
export function firstValueOutside(
  values: readonly EventValue[],
  publisherAddress: string,
  source: string,
): BadRequestError {
  const node = nodeOf(publisherAddress, source);
  const i = Math.max(
    0,
    values.findIndex((value) => !isAtOrUnder(value.ResourceAddress, node)),
  );
  return valueOutside(i, values[i], publisherAddress, source);
}

function valueOutside(
  i: number,
  value: EventValue | undefined,
  publisherAddress: string,
  source: string,
): BadRequestError {
  const node = nodeOf(publisherAddress, source);
  const where =
    node === publisherAddress
      ? `the publisher's address ${publisherAddress} or lie under it`
      : `on the publisher's node: at or under ${node} (its address ${publisherAddress} less the source ${source})`;
  return bad(`data.values[${i}].ResourceAddress "${value?.ResourceAddress ?? ''}" must be ${where}`);
}

export function wrongSource(source: string, publisherAddress: string): BadRequestError {
  return bad(`source "${source}" must be the resource part of the publisher's address ${publisherAddress}`);
}

function validateValue(raw: unknown, member: string): EventValue {
  const input = object(raw, member);
  requireExactMemberNames(input, VALUE_MEMBERS, `${member}.`);
  const ResourceAddress = normaliseResourceAddress(input.ResourceAddress, `${member}.ResourceAddress`);
  const dataType = input.data_type;
  if (dataType !== 'notification' && dataType !== 'metric') {
    throw bad(`${member}.data_type must be "notification" or "metric"`);
  }
  const valueType = nonEmptyString(input.value_type, `${member}.value_type`);
  const value = input.value;
  if (value === undefined || value === null) throw bad(`${member}.value is required`);
  if (valueType === 'enumeration' && typeof value !== 'string') {
    throw bad(`${member}.value must be a string for value_type enumeration, e.g. "LOCKED"`);
  }
  if (valueType === 'decimal64.3' && !matchesNumber(value, DECIMAL_3)) {
    throw bad(
      `${member}.value must be a decimal number with at most three fraction digits, e.g. "-12.345" or -12.345`,
    );
  }
  if (valueType === 'metric' && !matchesNumber(value, UNSIGNED_INTEGER)) {
    throw bad(`${member}.value must be an unsigned integer for value_type metric, e.g. "248" or 248`);
  }
  return wireValue({ ResourceAddress, data_type: dataType, value_type: valueType, value });
}

function matchesNumber(value: unknown, form: RegExp): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && form.test(String(value));
  return typeof value === 'string' && form.test(value);
}

/** Validates an RFC 3339 UTC timestamp and returns a key that sorts in time order. */
export function parseTime(time: string): string {
  const match = RFC3339_UTC.exec(time);
  if (!match)
    throw bad(`time "${time}" must be an RFC 3339 UTC timestamp, e.g. 2021-03-05T20:59:00.999999999Z`);
  const [, year, month, day, hour, minute, second, fraction = ''] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const daysInMonth = m === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
  if (
    m < 1 ||
    m > 12 ||
    d < 1 ||
    d > daysInMonth ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 60
  ) {
    throw bad(`time "${time}" is not a valid date and time`);
  }
  return `${year}-${month}-${day}T${hour}:${minute}:${second}.${fraction.padEnd(9, '0')}`;
}

function object(value: unknown, member: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad(`${member} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function nonEmptyString(value: unknown, member: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw bad(`${member} is required and must be a non-empty string`);
  return value;
}

function bad(detail: string): BadRequestError {
  return new BadRequestError(detail);
}
