/** The comparison itself: a call added to a recording fails, naming the function and the call. */
import { describe, expect, it } from 'vitest';
import type { AwsCall } from '../../bench/aws-calls.mjs';
import { billedUnits } from './billing';
import { overBudget } from './budget-check';
import { CALL_BUDGETS, type CallBudget } from './budget-table';

/** A call as recorded; a DynamoDB one's answer reports `units` (read or write by its command). */
const call = (service: string, command: string, units = 0): AwsCall => ({
  service,
  command,
  input: {},
  output: { ConsumedCapacity: { CapacityUnits: units } },
  startedAt: 0,
  endedAt: 1,
  invocation: { name: 'publishEvent', id: 1 },
  error: undefined,
});

/** A recording that matches a function's rows exactly, rebuilt from the table. */
function recordingOf(fn: string): AwsCall[] {
  return CALL_BUDGETS.filter((row) => row.fn === fn).flatMap((row: CallBudget) => {
    const [service = '', command = ''] = row.call.split(' ');
    return Array.from({ length: row.requests }, () =>
      call(service, command, (row.read + row.write) / row.requests),
    );
  });
}

describe('the budget comparison', () => {
  it("passes a recording equal to the function's rows", () => {
    expect(overBudget('publishEvent', recordingOf('publishEvent'), CALL_BUDGETS)).toEqual([]);
  });

  it('fails a recording with one call more, naming the function and the call', () => {
    const recording = [...recordingOf('publishEvent'), call('DynamoDB', 'GetItem', 0.5)];
    expect(overBudget('publishEvent', recording, CALL_BUDGETS)).toEqual([
      'publishEvent: DynamoDB GetItem: 1 request, over its budget of 0',
      'publishEvent: DynamoDB GetItem: 0.5 read units, over its budget of 0',
    ]);
  });

  it('fails a call made twice where the table allows it once, and one that consumes more units', () => {
    const recording = [...recordingOf('publishEvent'), call('SQS', 'SendMessageBatch')];
    expect(overBudget('publishEvent', recording, CALL_BUDGETS)).toEqual([
      'publishEvent: SQS SendMessageBatch: 2 requests, over its budget of 1',
    ]);
    const heavier = recordingOf('publishEvent').map((c) =>
      c.command === 'UpdateItem' ? call(c.service, c.command, billedUnits(c).write + 1) : c,
    );
    expect(overBudget('publishEvent', heavier, CALL_BUDGETS)).toEqual([
      expect.stringMatching(/^publishEvent: DynamoDB UpdateItem: \d+ write units, over its budget of \d+$/),
    ]);
  });

  it('fails a call no longer made: the table is exact, and says to lower the budget', () => {
    const recording = recordingOf('publishEvent').filter((c) => c.service !== 'SQS');
    expect(overBudget('publishEvent', recording, CALL_BUDGETS)).toEqual([
      'publishEvent: SQS SendMessageBatch: 0 requests, under its budget of 1: lower the budget',
    ]);
  });

  it('fails a function the table does not know', () => {
    expect(overBudget('newFunction', [], CALL_BUDGETS)).toEqual([
      'newFunction: no row in the budget table (test/budgets/budget-table.ts)',
    ]);
  });
});
