import { AppError } from '@tollgate/core'

/** An exact non-negative fraction `numerator / denominator` (denominator > 0), never a float. */
export type Rational = { numerator: bigint; denominator: bigint }

const decimalPattern = /^(0|[1-9]\d*)(\.\d+)?$/

/** Decimal places of a rate on the wire (`"1550.00000000"`). */
export const rateScale = 8

/**
 * Parses a decimal string (`"1550"`, `"0.00064516"`) into an exact reduced {@link Rational}.
 * Rejects exponents, signs and malformed strings with a `validation_error`.
 */
export function parseRational(text: string): Rational {
  if (!decimalPattern.test(text)) {
    throw new AppError('validation_error', { message: `"${text}" is not a decimal string` })
  }
  const [whole = '', fraction = ''] = text.split('.')
  return reduce({ numerator: BigInt(whole + fraction), denominator: 10n ** BigInt(fraction.length) })
}

/** The product of two rationals, reduced. */
export function multiplyRational(a: Rational, b: Rational): Rational {
  return reduce({ numerator: a.numerator * b.numerator, denominator: a.denominator * b.denominator })
}

/** `a / b`, reduced; throws `validation_error` when `b` is zero. */
export function divideRational(a: Rational, b: Rational): Rational {
  if (b.numerator === 0n) {
    throw new AppError('validation_error', { message: 'division by a zero rate' })
  }
  return reduce({ numerator: a.numerator * b.denominator, denominator: a.denominator * b.numerator })
}

/** Formats `value` with exactly `places` decimals, rounded down (`"0.00064516"`). */
export function formatRationalDown(value: Rational, places = rateScale): string {
  const scaled = (value.numerator * 10n ** BigInt(places)) / value.denominator
  const digits = scaled.toString().padStart(places + 1, '0')
  const whole = digits.slice(0, digits.length - places)
  return places > 0 ? `${whole}.${digits.slice(digits.length - places)}` : whole
}

function reduce(value: Rational): Rational {
  const divisor = gcd(value.numerator, value.denominator)
  return divisor > 1n
    ? { numerator: value.numerator / divisor, denominator: value.denominator / divisor }
    : value
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a
  let y = b < 0n ? -b : b
  while (y !== 0n) {
    ;[x, y] = [y, x % y]
  }
  return x
}
