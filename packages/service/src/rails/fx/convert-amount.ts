import { AppError } from '@tollgate/core'
import { parseRational } from './rational.js'

/** Input of {@link convertAmount}. */
export type ConvertAmountInput = {
  /** Minor units of the source currency at `fromScale` decimals (not negative). */
  amount: bigint
  fromScale: number
  toScale: number
  /** Target units per source unit, a decimal string (`"1550.00000000"`). */
  rate: string
  /**
   * `rate` is quoted the other way (source units per target unit): the result is `amount ÷ rate`.
   * Use it where the direct rate is too small for 8 places (NGN → BTC: divide by the BTC → NGN rate).
   */
  inverse?: boolean
  /** `down` (default): the house pays out, never more than the exact value; `up`: the house collects. */
  rounding?: 'down' | 'up'
}

const maxScale = 36

/**
 * Converts minor units between currencies at an exact decimal rate with one rounding at the end
 * (down by default, in the house's favour; see docs/rails-fiat.md "FX rates"). Never uses a float.
 */
export function convertAmount(input: ConvertAmountInput): bigint {
  const { amount, fromScale, toScale } = input
  if (amount < 0n) {
    throw new AppError('validation_error', { message: 'amount must not be negative' })
  }
  for (const scale of [fromScale, toScale]) {
    if (!Number.isInteger(scale) || scale < 0 || scale > maxScale) {
      throw new AppError('validation_error', {
        message: `scale ${scale} is not an integer in 0..${maxScale}`,
      })
    }
  }
  const rate = parseRational(input.rate)
  if (rate.numerator === 0n) {
    throw new AppError('validation_error', { message: 'rate must be greater than zero' })
  }
  const [rateNumerator, rateDenominator] = input.inverse
    ? [rate.denominator, rate.numerator]
    : [rate.numerator, rate.denominator]
  const numerator = amount * rateNumerator * 10n ** BigInt(toScale)
  const denominator = rateDenominator * 10n ** BigInt(fromScale)
  const quotient = numerator / denominator
  return input.rounding === 'up' && quotient * denominator !== numerator ? quotient + 1n : quotient
}
