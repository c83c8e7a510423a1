/**
 * A test oracle, not product code: decodes an event the way Red Hat's consumer library does, so a
 * test can tell whether a consumer built on it reads what the service sends. It follows
 * github.com/redhat-cne/sdk-go at 4932d33f8279a4295494971ace40a3ba8de8455e:
 *
 * - `pkg/event/event_unmarshal.go`, `Event.UnmarshalJSON` → `readJSONFromIterator`: `id`, `type`,
 *   `source` read with jsoniter's `ReadString` (a string, or `null` as ""; anything else is an
 *   error); `time` by `readTimestamp` → `types.ParseTimestamp`; `data` by `readData`; other
 *   members skipped. A top-level `version` or `values` is matched by an empty case that leaves its
 *   value unread, which breaks the rest of the parse: modelled as an error.
 * - `readData`: `version` by `ReadString`, `values` by `readDataValue`, whose error it returns.
 * - `readDataValue`: for each value, `ResourceAddress`, `data_type` and `value_type` by
 *   `ReadString`, `value` by `iter.Read()` (a JSON number becomes a float64). Then by
 *   `value_type`: `decimal64.3` → `strconv.ParseFloat(cacheValue.(string), 64)`, an unchecked
 *   type assertion that panics on anything but a string; `enumeration` → `cacheValue.(string)`,
 *   the same; `redfish-event` → a redfish.Event (not modelled here: no catalogue type carries
 *   one); anything else → the error "value type %v is not supported". The error of ParseFloat is
 *   kept in one variable for all values and returned after the loop, so it is the last decimal's.
 * - `pkg/types/value.go`, `ParseTime`: Go's `time.Parse(time.RFC3339Nano, v)`, whose RFC 3339 fast
 *   path (`parseRFC3339` in Go's time/format_rfc3339.go) is modelled; the general parser it falls
 *   back to is not, so this oracle is never more lenient than Go, only possibly stricter.
 */

/** What sdk-go's `readDataValue` returns an error for. */
export class SdkGoError extends Error {}

/** What would crash the consumer: a Go panic (an unchecked type assertion). */
export class SdkGoPanic extends Error {}

export interface SdkGoDataValue {
  readonly Resource: string;
  readonly DataType: string;
  readonly ValueType: string;
  /** float64 for decimal64.3, string for enumeration. */
  readonly Value: number | string;
}

export interface SdkGoEvent {
  readonly ID: string;
  readonly Type: string;
  readonly Source: string;
  /** Unix milliseconds of the parsed time; undefined when the event had none. */
  readonly Time: number | undefined;
  readonly Data: { readonly Version: string; readonly Values: readonly SdkGoDataValue[] } | undefined;
}

/** Decodes a notification or CurrentState body as `json.Unmarshal(body, &event.Event{})` does. */
export function decodeLikeSdkGo(body: string): SdkGoEvent {
  const input: unknown = JSON.parse(body);
  const event = readObject(input);
  let ID = '';
  let Type = '';
  let Source = '';
  let Time: number | undefined;
  let Data: SdkGoEvent['Data'];
  for (const [key, value] of Object.entries(event)) {
    switch (key) {
      case 'id':
        ID = readString(value, key);
        break;
      case 'type':
        Type = readString(value, key);
        break;
      case 'source':
        Source = readString(value, key);
        break;
      case 'time':
        Time = parseRfc3339Nano(readString(value, key));
        break;
      case 'data':
        Data = readData(value);
        break;
      case 'version':
      case 'values':
        throw new SdkGoError(
          `a top-level "${key}" is left unread by readJSONFromIterator and breaks the parse`,
        );
      default:
    }
  }
  return { ID, Type, Source, Time, Data };
}

function readData(input: unknown): NonNullable<SdkGoEvent['Data']> {
  const data = readObject(input);
  let Version = '';
  let Values: SdkGoDataValue[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === 'version') Version = readString(value, 'data.version');
    else if (key === 'values') Values = readDataValue(value);
  }
  return { Version, Values };
}

function readDataValue(input: unknown): SdkGoDataValue[] {
  if (input === null) return [];
  if (!Array.isArray(input)) throw new SdkGoError('ReadArray: expect [ or n');
  const values: SdkGoDataValue[] = [];
  let err: string | undefined;
  for (const item of input) {
    const fields = readObject(item);
    let Resource = '';
    let DataType = '';
    let ValueType = '';
    let cacheValue: unknown;
    for (const [key, value] of Object.entries(fields)) {
      if (key === 'ResourceAddress') Resource = readString(value, key);
      else if (key === 'data_type') DataType = readString(value, key);
      else if (key === 'value_type') ValueType = readString(value, key);
      else if (key === 'value') cacheValue = value;
    }
    let Value: number | string;
    if (ValueType === 'decimal64.3') {
      const parsed = parseFloat64(assertString(cacheValue, ValueType));
      Value = parsed.value;
      err = parsed.error;
    } else if (ValueType === 'enumeration') {
      Value = assertString(cacheValue, ValueType);
    } else if (ValueType === 'redfish-event') {
      throw new SdkGoError('redfish-event values are not modelled by this oracle');
    } else {
      throw new SdkGoError(`value type ${ValueType} is not supported`);
    }
    values.push({ Resource, DataType, ValueType, Value });
  }
  if (err !== undefined) throw new SdkGoError(err);
  return values;
}

/** `cacheValue.(string)` on what jsoniter's `Read()` gave: a string, or a panic. */
function assertString(value: unknown, valueType: string): string {
  if (typeof value === 'string') return value;
  const goType =
    value === undefined || value === null
      ? 'nil'
      : typeof value === 'number'
        ? 'float64'
        : typeof value === 'boolean'
          ? 'bool'
          : Array.isArray(value)
            ? '[]interface {}'
            : 'map[string]interface {}';
  throw new SdkGoPanic(
    `interface conversion: interface {} is ${goType}, not string (value_type ${valueType})`,
  );
}

/** jsoniter's `ReadString`: a JSON string, or `null` read as "". */
function readString(value: unknown, member: string): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  throw new SdkGoError(`ReadString: expects " or n, but found ${JSON.stringify(value)} (${member})`);
}

function readObject(value: unknown): Record<string, unknown> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new SdkGoError('ReadObject: expect { or n');
  }
  return value as Record<string, unknown>;
}

/**
 * Go's `strconv.ParseFloat(s, 64)`: decimal and hexadecimal floating-point literals, underscores
 * only between digits (`underscoreOK`), "inf"/"infinity" with an optional sign and "nan" in any
 * case; an overflow is an ErrRange error. Returns the value and the error text, if any.
 */
export function parseFloat64(s: string): { value: number; error?: string } {
  const syntax = { value: 0, error: `strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax` };
  const special = /^([+-]?)(inf|infinity)$/i.exec(s);
  if (special) return { value: special[1] === '-' ? -Infinity : Infinity };
  if (/^nan$/i.test(s)) return { value: Number.NaN };
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(s);
  const decimal = /^[+-]?(?:[0-9_]+(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?$/.test(s);
  if (!hex && !decimal) return syntax;
  if (s.includes('_') && !underscoreOK(s)) return syntax;
  const plain = s.replaceAll('_', '');
  let value: number;
  if (hex) {
    const [, sign = '', whole = '', fraction = '', exponent = '0'] = hex;
    const digits = `${whole}${fraction}`.replaceAll('_', '');
    if (digits === '') return syntax;
    value =
      (sign === '-' ? -1 : 1) *
      Number.parseInt(digits, 16) *
      2 ** (Number(exponent.replaceAll('_', '')) - 4 * fraction.replaceAll('_', '').length);
  } else {
    if (!/[0-9]/.test(plain.split(/[eE]/)[0] ?? '')) return syntax;
    value = Number(plain);
  }
  if (!Number.isFinite(value)) {
    return { value, error: `strconv.ParseFloat: parsing ${JSON.stringify(s)}: value out of range` };
  }
  return { value };
}

/** Go's strconv `underscoreOK`: underscores only between digits, or between a base prefix and a digit. */
function underscoreOK(input: string): boolean {
  let s = input;
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes((s[1] ?? '').toLowerCase())) {
    i = 2;
    saw = '0';
    hex = (s[1] ?? '').toLowerCase() === 'x';
  }
  for (; i < s.length; i++) {
    const c = s[i] ?? '';
    if ((c >= '0' && c <= '9') || (hex && /[a-f]/i.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/**
 * Go's `time.Parse(time.RFC3339Nano, v)` by its fast path `parseRFC3339`: `2006-01-02T15:04:05`
 * with an upper-case `T`, fields in range (second 0–59: Go has no leap second), an optional
 * fraction, then `Z` or `±hh:mm`. Returns Unix milliseconds.
 */
export function parseRfc3339Nano(v: string): number {
  const refuse = () =>
    new SdkGoError(
      `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.999999999Z07:00": not in RFC3339 format`,
    );
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(v);
  if (!match) throw refuse();
  const [, year, month, day, hour, minute, second, fraction = '', zone = 'Z'] = match;
  const y = Number(year);
  const m = Number(month);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
  const inRange =
    m >= 1 &&
    m <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= daysInMonth &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    (zone === 'Z' || (Number(zone.slice(1, 3)) <= 23 && Number(zone.slice(4, 6)) <= 59));
  if (!inRange) throw refuse();
  const offsetMinutes =
    zone === 'Z'
      ? 0
      : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const utc = new Date(0);
  utc.setUTCFullYear(y, m - 1, Number(day));
  utc.setUTCHours(Number(hour), Number(minute), Number(second));
  return utc.getTime() - offsetMinutes * 60_000 + Math.floor(Number(`0${fraction}`) * 1000);
}
