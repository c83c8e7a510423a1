import type { EventRate } from './model';

/**
 * A publisher's event rate as a generic cell rate (GCRA, docs/security.md): `rateAt` is the
 * theoretical time of its next event (epoch ms). An event at `nowMs` conforms when `rateAt` is
 * at most the burst's tolerance ahead, and moves it on by one interval (from now, when the
 * publisher was idle); otherwise it is refused until it would conform. Each store applies the
 * rule as it can: the DynamoDB store as its publish update's condition (lib/store/transactions.ts),
 * the node's store as it is.
 */
export function rateStep(
  rateAt: number | undefined,
  nowMs: number,
  rate: EventRate,
):
  | { readonly kind: 'conforms'; readonly rateAt: number }
  | { readonly kind: 'over'; readonly retryAfterMs: number } {
  const toleranceMs = (rate.burst - 1) * rate.intervalMs;
  if (rateAt === undefined || rateAt < nowMs) return { kind: 'conforms', rateAt: nowMs + rate.intervalMs };
  if (rateAt - nowMs > toleranceMs) return { kind: 'over', retryAfterMs: rateAt - toleranceMs - nowMs };
  return { kind: 'conforms', rateAt: rateAt + rate.intervalMs };
}
