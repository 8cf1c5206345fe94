import { AppError } from '@tollgate/core'
import { parseRational } from './rational.js'

/** Input of {@link splitFee}: a gross amount in minor units, a proportional rate and a fixed part. */
export type SplitFeeInput = {
  gross: bigint
  /** Proportional fee as a decimal fraction (`"0.015"` = 1.5 %); default none. */
  rate?: string
  /** Fixed fee in the same minor units; default 0. */
  fixed?: bigint
}

/**
 * Computes a fee once, rounded half-up to the minor unit (`gross × rate`, plus `fixed`), and the net
 * as `gross − fee`. The net may be zero or negative when the fee eats the amount: callers reject it.
 */
export function splitFee(input: SplitFeeInput): { fee: bigint; net: bigint } {
  const { gross, fixed = 0n } = input
  if (gross < 0n || fixed < 0n) {
    throw new AppError('validation_error', { message: 'gross and fixed fee must not be negative' })
  }
  const rate = parseRational(input.rate ?? '0')
  // Half-up for non-negative values: floor((2·g·n + d) / 2d).
  const proportional = (2n * gross * rate.numerator + rate.denominator) / (2n * rate.denominator)
  const fee = proportional + fixed
  return { fee, net: gross - fee }
}
