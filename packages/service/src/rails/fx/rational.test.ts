import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { divideRational, formatRationalDown, multiplyRational, parseRational } from './rational.js'

describe('parseRational', () => {
  test('default: decimal strings become exact reduced fractions', () => {
    expect(parseRational('1550')).toEqual({ numerator: 1550n, denominator: 1n })
    expect(parseRational('0.25')).toEqual({ numerator: 1n, denominator: 4n })
    expect(parseRational('15.50')).toEqual({ numerator: 31n, denominator: 2n })
    expect(parseRational('0')).toEqual({ numerator: 0n, denominator: 1n })
  })

  test('behavior: signs, exponents, blanks and leading zeros are validation errors', () => {
    for (const text of ['-1', '1e3', '', ' 1', '01', '1.', '.5', 'NaN', '1,5']) {
      expect(() => parseRational(text), text).toThrow(expect.objectContaining({ code: 'validation_error' }))
    }
  })
})

describe('formatRationalDown', () => {
  test('default: eight places, rounded down', () => {
    expect(formatRationalDown({ numerator: 1n, denominator: 1550n })).toBe('0.00064516')
    expect(formatRationalDown({ numerator: 2n, denominator: 3n })).toBe('0.66666666')
    expect(formatRationalDown({ numerator: 1550n, denominator: 1n })).toBe('1550.00000000')
    expect(formatRationalDown({ numerator: 7n, denominator: 2n }, 0)).toBe('3')
  })

  test('property: parse(format(x)) ≤ x < parse(format(x)) + 1e-8', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        (n, d) => {
          const shown = parseRational(formatRationalDown({ numerator: n, denominator: d }))
          // shown ≤ n/d  ⇔  shown.n · d ≤ n · shown.d
          expect(shown.numerator * d <= n * shown.denominator).toBe(true)
          // n/d < shown + 1e-8  ⇔  n · 1e8 · shown.d < (shown.n · 1e8 + shown.d) · d
          expect(
            n * 10n ** 8n * shown.denominator < (shown.numerator * 10n ** 8n + shown.denominator) * d,
          ).toBe(true)
        },
      ),
    )
  })
})

describe('multiplyRational / divideRational', () => {
  test('default: exact products and quotients; division by zero is a validation error', () => {
    const third = { numerator: 1n, denominator: 3n }
    expect(multiplyRational(third, { numerator: 3n, denominator: 1n })).toEqual({
      numerator: 1n,
      denominator: 1n,
    })
    expect(divideRational(third, third)).toEqual({ numerator: 1n, denominator: 1n })
    expect(() => divideRational(third, { numerator: 0n, denominator: 1n })).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    )
  })
})
