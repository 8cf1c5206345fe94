import { AppError } from '@tollgate/core'
import type { FxConversion } from '../types.js'
import { parseRational } from './rational.js'

const maxScale = 36

/**
 * Converts minor units between currencies at an exact decimal rate with one rounding at the end
 * (down by default, in the house's favour; see docs/rails-fiat.md "FX rates"). Never uses a float.
 */
export function convertAmount(input: FxConversion): bigint {
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
