import { AppError } from '@tollgate/core'

const ratePattern = /^(0|[1-9]\d*)(\.\d+)?$/

/** A decimal rate as an exact fraction `numerator / 10^scale`. */
export function parseRate(rate: string): { numerator: bigint; scale: number } {
  if (!ratePattern.test(rate)) {
    throw new AppError('internal_error', { message: `rate "${rate}" is not a decimal string` })
  }
  const [whole = '', fraction = ''] = rate.split('.')
  return { numerator: BigInt(whole + fraction), scale: fraction.length }
}

/**
 * The smallest source amount (minor units at `fromScale`) that converts at `rate` to at least `target`
 * (minor units at `toScale`): the source needed for a recipient to receive `target`.
 */
export function sourceForTarget(input: {
  target: bigint
  fromScale: number
  toScale: number
  rate: string
}): bigint {
  const { numerator, scale } = parseRate(input.rate)
  if (numerator === 0n) {
    throw new AppError('provider_unavailable', { message: 'The FX rate is zero' })
  }
  const dividend = input.target * 10n ** BigInt(input.fromScale + scale)
  const divisor = numerator * 10n ** BigInt(input.toScale)
  return (dividend + divisor - 1n) / divisor
}
