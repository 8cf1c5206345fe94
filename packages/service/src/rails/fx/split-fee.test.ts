import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { splitFee } from './split-fee.js'

describe('splitFee', () => {
  test('default: the fee rounds half-up once and net is gross minus fee', () => {
    // 1.5 % of 100.00 NGN (10000 kobo) = 150 kobo exactly.
    expect(splitFee({ gross: 10_000n, rate: '0.015' })).toEqual({ fee: 150n, net: 9_850n })
    // 1.5 % of 33 = 0.495 → 0; of 34 = 0.51 → 1; of 100 = 1.5 → 2 (half-up).
    expect(splitFee({ gross: 33n, rate: '0.015' }).fee).toBe(0n)
    expect(splitFee({ gross: 34n, rate: '0.015' }).fee).toBe(1n)
    expect(splitFee({ gross: 100n, rate: '0.015' }).fee).toBe(2n)
    expect(splitFee({ gross: 100n, rate: '0.015', fixed: 50n })).toEqual({ fee: 52n, net: 48n })
    expect(splitFee({ gross: 100n })).toEqual({ fee: 0n, net: 100n })
  })

  test('behavior: negative gross or fixed fee and bad rates are validation errors', () => {
    const invalid = expect.objectContaining({ code: 'validation_error' })
    expect(() => splitFee({ gross: -1n, rate: '0.01' })).toThrow(invalid)
    expect(() => splitFee({ gross: 1n, fixed: -1n })).toThrow(invalid)
    expect(() => splitFee({ gross: 1n, rate: '-0.01' })).toThrow(invalid)
    expect(() => splitFee({ gross: 1n, rate: '1e-2' })).toThrow(invalid)
  })

  test('property: |fee − gross·rate| ≤ ½ minor unit, ties up, and fee + net = gross', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 6 }),
        (gross, rateDigits, places) => {
          const denominator = 10n ** BigInt(places)
          const rate = BigInt(rateDigits)
          // The decimal string `rate / 10^places`, built from digits (no floats).
          const padded = rate.toString().padStart(places + 1, '0')
          const decimal = places === 0 ? padded : `${padded.slice(0, -places)}.${padded.slice(-places)}`
          const { fee, net } = splitFee({ gross, rate: decimal })
          expect(fee + net).toBe(gross)
          // exact = gross·rate/denominator; 2·|fee·den − gross·rate| ≤ den, and a tie rounds up.
          const twiceError = 2n * (fee * denominator - gross * rate)
          expect(twiceError <= denominator && twiceError > -denominator).toBe(true)
        },
      ),
    )
  })
})
