/**
 * The sdk-go oracle (test/support/sdk-go.ts) can fail: it reads what sdk-go's own unmarshal tests
 * read (pkg/event/event_unmarshal_test.go, TestUnMarshal at 4932d33) and refuses, or panics on,
 * exactly what the Go code refuses or panics on.
 */
import { describe, expect, it } from 'vitest';
import { decodeLikeSdkGo, parseFloat64, parseRfc3339Nano, SdkGoError, SdkGoPanic } from '../support/sdk-go';

const RESOURCE = '/cluster/node/ptp';

function body(values: unknown[], over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    data: { resource: RESOURCE, values, version: 'v1' },
    id: 'ABC-1234',
    time: '2021-03-05T20:59:00.999999999Z',
    type: 'event.sync.ptp-status.ptp-state-change',
    source: '/cluster/node/example.com/ptp/clock_realtime',
    dataSchema: null,
    ...over,
  });
}

const enumeration = {
  ResourceAddress: RESOURCE,
  data_type: 'notification',
  value: 'FREERUN',
  value_type: 'enumeration',
};
const decimal = (value: unknown) => ({
  ResourceAddress: RESOURCE,
  data_type: 'metric',
  value,
  value_type: 'decimal64.3',
});

describe('the sdk-go oracle', () => {
  it("reads sdk-go's own 'struct Data notification' case: strings in, a float64 out", () => {
    const event = decodeLikeSdkGo(body([enumeration, decimal('10.63')]));
    expect(event).toStrictEqual({
      ID: 'ABC-1234',
      Type: 'event.sync.ptp-status.ptp-state-change',
      Source: '/cluster/node/example.com/ptp/clock_realtime',
      Time: Date.parse('2021-03-05T20:59:00.999Z'),
      Data: {
        Version: 'v1',
        Values: [
          { Resource: RESOURCE, DataType: 'notification', ValueType: 'enumeration', Value: 'FREERUN' },
          { Resource: RESOURCE, DataType: 'metric', ValueType: 'decimal64.3', Value: 10.63 },
        ],
      },
    });
  });

  it("refuses sdk-go's 'unSupportedValueType' case, and the value type metric", () => {
    expect(() => decodeLikeSdkGo(body([{ ...enumeration, value_type: 'foo' }]))).toThrow(
      new SdkGoError('value type foo is not supported'),
    );
    expect(() => decodeLikeSdkGo(body([{ ...decimal('6'), value_type: 'metric' }]))).toThrow(
      new SdkGoError('value type metric is not supported'),
    );
  });

  it.each([
    ['a decimal64.3 number', decimal(-3), 'float64'],
    ['a decimal64.3 without value', { ...decimal('1'), value: undefined }, 'nil'],
    ['an enumeration number', { ...enumeration, value: 1 }, 'float64'],
    ['an enumeration object', { ...enumeration, value: { state: 'LOCKED' } }, 'map[string]interface {}'],
  ])('panics, as the unchecked cast does, on %s', (_name, value, goType) => {
    expect(() => decodeLikeSdkGo(body([value]))).toThrow(SdkGoPanic);
    expect(() => decodeLikeSdkGo(body([value]))).toThrow(`interface {} is ${goType}, not string`);
  });

  it('returns the error of the last decimal only, as the shared err variable does', () => {
    expect(() => decodeLikeSdkGo(body([decimal('x'), decimal('1')]))).not.toThrow();
    expect(() => decodeLikeSdkGo(body([decimal('1'), decimal('x')]))).toThrow(SdkGoError);
  });

  it.each([
    ['1', 1],
    ['-3', -3],
    ['27.000', 27],
    ['1_000.5', 1000.5],
    ['1e3', 1000],
    ['.5', 0.5],
    ['0x1p-2', 0.25],
    ['-Inf', -Infinity],
  ])('parses %s as strconv.ParseFloat does', (text, value) => {
    expect(parseFloat64(text)).toStrictEqual({ value });
  });

  it.each(['', ' 1', '1 ', '1,5', '_1', '1__0', '1_.5', '0x1', 'abc', '+-1'])(
    'refuses %j as strconv.ParseFloat does',
    (text) => {
      expect(parseFloat64(text).error).toMatch(/invalid syntax/);
    },
  );

  it('refuses an overflow with ErrRange', () => {
    expect(parseFloat64('1e400').error).toMatch(/value out of range/);
  });

  it.each([
    ['2021-03-05T20:59:00Z', Date.parse('2021-03-05T20:59:00Z')],
    ['2021-03-05T20:59:00.5+00:00', Date.parse('2021-03-05T20:59:00.5Z')],
    ['2021-03-05T22:59:00.123456789+02:00', Date.parse('2021-03-05T20:59:00.123Z')],
    ['2024-02-29T00:00:00Z', Date.parse('2024-02-29T00:00:00Z')],
  ])('reads the time %s as time.Parse(RFC3339Nano) does', (time, ms) => {
    expect(parseRfc3339Nano(time)).toBe(ms);
  });

  it.each([
    '2021-03-05t20:59:00Z',
    '2021-03-05T20:59:00z',
    '2016-12-31T23:59:60Z',
    '2023-02-29T00:00:00Z',
    '2021-03-05T20:59:00',
    '2021-03-05 20:59:00Z',
  ])('refuses the time %s as time.Parse(RFC3339Nano) does', (time) => {
    expect(() => decodeLikeSdkGo(body([enumeration], { time }))).toThrow(/not in RFC3339 format/);
  });
});
