import { describe, expect, test } from 'vitest'
import { parseRate, sourceForTarget } from './exact-rate.js'

// The forward conversion (the rails' fx.convert contract), written out independently for the check.
function convertDown(input: { amount: bigint; fromScale: number; toScale: number; rate: string }): bigint {
  const { numerator, scale } = parseRate(input.rate)
  return (input.amount * numerator * 10n ** BigInt(input.toScale)) / 10n ** BigInt(input.fromScale + scale)
}

describe('exact rates', () => {
  test('parseRate keeps every digit', () => {
    expect(parseRate('129.34567891')).toEqual({ numerator: 12934567891n, scale: 8 })
    expect(parseRate('15')).toEqual({ numerator: 15n, scale: 0 })
  })

  test('sourceForTarget is the least source that converts to the target', () => {
    for (const [target, rate] of [
      [1_293_456n, '129.34567891'],
      [100n, '15.12345678'],
      [999_999_999n, '0.00065432'],
      [1n, '129.5'],
    ] as const) {
      const source = sourceForTarget({ target, fromScale: 6, toScale: 2, rate })
      expect(convertDown({ amount: source, fromScale: 6, toScale: 2, rate })).toBeGreaterThanOrEqual(target)
      expect(convertDown({ amount: source - 1n, fromScale: 6, toScale: 2, rate })).toBeLessThan(target)
    }
  })
})
