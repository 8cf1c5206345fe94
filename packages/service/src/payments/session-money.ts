import { AppError } from '@tollgate/core'

/** Fiat currencies a session may be priced in (all with 2 decimals). */
export const sessionCurrencies = ['USD', 'NGN', 'KES', 'GHS', 'ZAR'] as const

/** A fiat currency of {@link sessionCurrencies}. */
export type SessionCurrency = (typeof sessionCurrencies)[number]

/** Decimal places of every session fiat currency. */
export const fiatScale = 2

const ratePattern = /^(0|[1-9]\d*)(\.\d+)?$/

/**
 * Converts `amount` minor units at `fromScale` into minor units at `toScale` at `rate` (target units per
 * source unit, an exact decimal string), rounding once at the end, `down` or `up`.
 */
export function convertAtRate(input: {
  amount: bigint
  fromScale: number
  toScale: number
  rate: string
  rounding: 'down' | 'up'
}): bigint {
  if (!ratePattern.test(input.rate)) {
    throw new AppError('internal_error', { message: `"${input.rate}" is not a decimal rate` })
  }
  const [whole, fraction = ''] = input.rate.split('.') as [string, string?]
  const numerator = input.amount * BigInt(whole + fraction) * 10n ** BigInt(input.toScale)
  const denominator = 10n ** BigInt(fraction.length + input.fromScale)
  const quotient = numerator / denominator
  return input.rounding === 'up' && quotient * denominator < numerator ? quotient + 1n : quotient
}

/** Moves `amount` from `fromScale` to `toScale` decimals, rounding down (the house keeps the dust). */
export function rescale(amount: bigint, fromScale: number, toScale: number): bigint {
  return toScale >= fromScale
    ? amount * 10n ** BigInt(toScale - fromScale)
    : amount / 10n ** BigInt(fromScale - toScale)
}

/** `amount * bps / 10000`, rounded half-up (fees round once, half-up). */
export function applyBasisPoints(amount: bigint, bps: number): bigint {
  return (amount * BigInt(bps) * 2n + 10_000n) / 20_000n
}
