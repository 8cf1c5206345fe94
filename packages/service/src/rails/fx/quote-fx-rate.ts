import { divideRational, formatRationalDown, multiplyRational, type Rational } from './rational.js'

/** A currency's USD value of one unit (exact) and its spread in basis points. */
export type FxMid = { usdValue: Rational; spreadBps: number }

/**
 * The house rate from `from` to `to` (target units per source unit) as an 8-place decimal string:
 * the cross mid through USD, less both currencies' spreads, rounded down. The same currency is 1.
 */
export function quoteFxRate(from: FxMid, to: FxMid, same = false): string {
  if (same) {
    return formatRationalDown({ numerator: 1n, denominator: 1n })
  }
  const mid = divideRational(from.usdValue, to.usdValue)
  const keep = BigInt(10_000 - from.spreadBps - to.spreadBps)
  return formatRationalDown(multiplyRational(mid, { numerator: keep, denominator: 10_000n }))
}
