import { AppError } from './app-error.js'

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/
const ATOMIC = /^(0|[1-9]\d*)$/

/** Options of {@link parseDecimalAmount}: `allowZero` accepts `"0"` (rejected by default). */
export type ParseDecimalAmountOptions = { allowZero?: boolean }

/**
 * Converts a decimal string in whole units (`"1.5"`) into bigint atomic units for an asset with
 * `decimals` places (`1500000n` for 6). Never goes through a float. Rejects negative, zero (unless
 * `allowZero`), exponent or malformed strings, and more fraction digits than the asset has
 * (a price below one atomic unit must not silently become 0).
 */
export function parseDecimalAmount(
  value: string,
  decimals: number,
  options: ParseDecimalAmountOptions = {},
): bigint {
  const match = DECIMAL.exec(value)
  if (!match) {
    throw new AppError('invalid_amount', {
      context: { value, decimals },
      message: `"${value}" is not a decimal amount`,
    })
  }
  const [whole, fraction = ''] = value.split('.') as [string, string?]
  if (fraction.length > decimals) {
    throw new AppError('invalid_amount', {
      context: { value, decimals },
      message: `"${value}" has more than ${decimals} decimal places`,
    })
  }
  const atomic = BigInt(whole + fraction.padEnd(decimals, '0'))
  return assertPositive(atomic, value, options)
}

/** Parses an atomic-unit decimal string (`"1500000"`, the x402 `amount` field) into a bigint. */
export function parseAtomicAmount(value: string, options: ParseDecimalAmountOptions = {}): bigint {
  if (!ATOMIC.test(value)) {
    throw new AppError('invalid_amount', {
      context: { value },
      message: `"${value}" is not an amount in atomic units`,
    })
  }
  return assertPositive(BigInt(value), value, options)
}

/**
 * Parses a dollar price (`"$0.01"`, `"0.01"`, or a number such as `0.01` written by a merchant in
 * config) into atomic units of a USD stablecoin with `decimals` places. Numbers are read through
 * their shortest decimal representation, never multiplied as floats.
 */
export function parseDollarPrice(price: string | number, decimals: number): bigint {
  const text = typeof price === 'number' ? numberToDecimalString(price) : price.trim()
  return parseDecimalAmount(text.startsWith('$') ? text.slice(1).replaceAll(',', '') : text, decimals)
}

/** Formats atomic units as a decimal string with the asset's full scale (`1500000n`, 6 → `"1.500000"`). */
export function formatAtomicAmount(atomic: bigint, decimals: number): string {
  const negative = atomic < 0n
  const digits = (negative ? -atomic : atomic).toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals)
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`
}

function assertPositive(atomic: bigint, value: string, options: ParseDecimalAmountOptions): bigint {
  if (atomic === 0n && !options.allowZero) {
    throw new AppError('invalid_amount', { context: { value }, message: 'amount must be greater than zero' })
  }
  return atomic
}

function numberToDecimalString(value: number): string {
  if (!Number.isFinite(value)) {
    throw new AppError('invalid_amount', { context: { value: String(value) } })
  }
  // toString gives the shortest round-tripping form; expand exponents (1e-7) without float math.
  const text = value.toString()
  const exp = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (!exp) {
    return text
  }
  const [, int = '', frac = '', power = '0'] = exp
  const digits = int + frac
  const point = int.length + Number(power)
  if (point <= 0) {
    return `0.${'0'.repeat(-point)}${digits}`
  }
  return point >= digits.length
    ? digits + '0'.repeat(point - digits.length)
    : `${digits.slice(0, point)}.${digits.slice(point)}`
}
