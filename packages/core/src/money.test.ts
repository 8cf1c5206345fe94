import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { isAppError } from './app-error.js'
import { formatAtomicAmount, parseAtomicAmount, parseDecimalAmount, parseDollarPrice } from './money.js'

describe('parseDecimalAmount', () => {
  test('default', () => {
    expect(parseDecimalAmount('1.5', 6)).toBe(1_500_000n)
    expect(parseDecimalAmount('4.02', 6)).toBe(4_020_000n)
    expect(parseDecimalAmount('0.000001', 6)).toBe(1n)
    expect(parseDecimalAmount('12', 18)).toBe(12n * 10n ** 18n)
  })

  test('behavior: rejects zero unless allowed, negatives, exponents and junk', () => {
    for (const bad of ['0', '0.00', '-1', '1e3', '', '.5', '01', '1.', ' 1', 'abc', '1,000']) {
      expect(() => parseDecimalAmount(bad, 6), bad).toThrowError()
    }
    expect(parseDecimalAmount('0', 6, { allowZero: true })).toBe(0n)
  })

  test('behavior: more decimals than the asset has is an error, not a truncation', () => {
    try {
      parseDecimalAmount('0.0000001', 6)
      expect.unreachable()
    } catch (error) {
      expect(isAppError(error, 'invalid_amount')).toBe(true)
    }
  })

  test('behavior: round-trips with formatAtomicAmount for any amount and scale', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 40n }),
        fc.integer({ min: 0, max: 18 }),
        (atomic, decimals) => {
          expect(parseDecimalAmount(formatAtomicAmount(atomic, decimals), decimals)).toBe(atomic)
        },
      ),
    )
  })
})

describe('formatAtomicAmount', () => {
  test('default: carries the full scale', () => {
    expect(formatAtomicAmount(150_000n, 2)).toBe('1500.00')
    expect(formatAtomicAmount(12_500_000n, 6)).toBe('12.500000')
    expect(formatAtomicAmount(1n, 6)).toBe('0.000001')
    expect(formatAtomicAmount(0n, 6)).toBe('0.000000')
    expect(formatAtomicAmount(7n, 0)).toBe('7')
    expect(formatAtomicAmount(-5n, 2)).toBe('-0.05')
  })
})

describe('parseAtomicAmount', () => {
  test('default', () => {
    expect(parseAtomicAmount('10000')).toBe(10_000n)
  })
  test('behavior: rejects decimals, zero and leading zeros', () => {
    for (const bad of ['1.0', '0', '007', '-3', '']) {
      expect(() => parseAtomicAmount(bad), bad).toThrowError()
    }
  })
})

describe('parseDollarPrice', () => {
  test('default: "$0.01" in 6 and 18 decimals', () => {
    expect(parseDollarPrice('$0.01', 6)).toBe(10_000n)
    expect(parseDollarPrice('$0.01', 18)).toBe(10n ** 16n)
    expect(parseDollarPrice('$1,250.5', 6)).toBe(1_250_500_000n)
  })
  test('behavior: numbers are read as their decimal text, not multiplied as floats', () => {
    expect(parseDollarPrice(4.02, 6)).toBe(4_020_000n)
    expect(parseDollarPrice(0.1 + 0.2, 18)).toBe(300_000_000_000_000_040n)
    expect(parseDollarPrice(1e-6, 6)).toBe(1n)
  })
  test('behavior: a price below one atomic unit is an error', () => {
    expect(() => parseDollarPrice('$0.0000001', 6)).toThrowError(/decimal places/)
  })
})
