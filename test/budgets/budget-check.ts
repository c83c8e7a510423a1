/** Recorded calls against the budget table (budget-table.ts), and their tally for the printed table. */
import type { AwsCall } from '../../bench/aws-calls.mjs';
import { billedUnits } from './billing';
import { type CallBudget, NO_CALL } from './budget-table';
import { callName } from './cost-model';

export interface CallTally {
  call: string;
  requests: number;
  read: number;
  write: number;
}

/** Per call (service and command), in the order first made: requests, read and write units. */
export function tally(calls: readonly AwsCall[]): CallTally[] {
  const byCall = new Map<string, CallTally>();
  for (const call of calls) {
    const name = callName(call);
    const entry = byCall.get(name) ?? { call: name, requests: 0, read: 0, write: 0 };
    const units = billedUnits(call);
    entry.requests += 1;
    entry.read += units.read;
    entry.write += units.write;
    byCall.set(name, entry);
  }
  return [...byCall.values()];
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * What differs between the calls `fn` made and its rows of the budget table, one message each,
 * naming the function and the call: a call made more often or consuming more than its row allows
 * (or with no row), and one made less (the table is exact: lower it). Empty when they agree.
 */
export function overBudget(fn: string, calls: readonly AwsCall[], budgets: readonly CallBudget[]): string[] {
  const all = budgets.filter((row) => row.fn === fn);
  if (all.length === 0) return [`${fn}: no row in the budget table (test/budgets/budget-table.ts)`];
  const rows = all.filter((row) => row.call !== NO_CALL);
  const made = tally(calls);
  const messages: string[] = [];
  const names = [...new Set([...made.map((t) => t.call), ...rows.map((row) => row.call)])];
  for (const name of names) {
    const counted = made.find((t) => t.call === name) ?? { call: name, requests: 0, read: 0, write: 0 };
    const row = rows.find((r) => r.call === name) ?? { fn, call: name, requests: 0, read: 0, write: 0 };
    const compare = (what: string, value: number, budget: number) => {
      if (value > budget)
        messages.push(`${fn}: ${name}: ${plural(value, what)}, over its budget of ${budget}`);
      else if (value < budget)
        messages.push(
          `${fn}: ${name}: ${plural(value, what)}, under its budget of ${budget}: lower the budget`,
        );
    };
    compare('request', counted.requests, row.requests);
    compare('read unit', counted.read, row.read);
    compare('write unit', counted.write, row.write);
  }
  return messages;
}

export interface Tallied {
  fn: string;
  calls: CallTally[];
}

/** Prints the counted calls as a table (what `npm run budgets` shows). */
export function printTable(title: string, counted: readonly Tallied[]): void {
  const lines = [`\n${title}`, `${'function'.padEnd(40)} ${'call'.padEnd(32)} requests    RRU    WRU`];
  for (const { fn, calls } of counted) {
    if (calls.length === 0) lines.push(`${fn.padEnd(40)} ${NO_CALL}`);
    for (const t of calls) {
      lines.push(
        `${fn.padEnd(40)} ${t.call.padEnd(32)} ${String(t.requests).padStart(8)} ${t.read.toFixed(1).padStart(6)} ${t.write.toFixed(1).padStart(6)}`,
      );
    }
  }
  console.log(lines.join('\n'));
}
