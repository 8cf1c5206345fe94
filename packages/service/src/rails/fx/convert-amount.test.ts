import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { convertAmount } from './convert-amount.js'
import { quoteFxRate } from './quote-fx-rate.js'
import { multiplyRational, parseRational, type Rational } from './rational.js'

describe('convertAmount', () => {
  test('default: exact conversion between scales, rounded down', () => {
    // 100.00 USD-scale-2 at 1550 NGN/USD = 155000.00 NGN.
    expect(convertAmount({ amount: 10_000n, fromScale: 2, toScale: 2, rate: '1550' })).toBe(15_500_000n)
    // 1000.00 NGN → USDT (6 places) at 0.00064516: 0.645160 USDT.
    expect(convertAmount({ amount: 100_000n, fromScale: 2, toScale: 6, rate: '0.00064516' })).toBe(645_160n)
    // 1 minor unit at 0.5 rounds down to 0; up to 1 with rounding: 'up'.
    expect(convertAmount({ amount: 1n, fromScale: 2, toScale: 2, rate: '0.5' })).toBe(0n)
    expect(convertAmount({ amount: 1n, fromScale: 2, toScale: 2, rate: '0.5', rounding: 'up' })).toBe(1n)
    // inverse: 155000.00 NGN → BTC (8 places) divides by the BTC → NGN rate: 0.00105263 BTC, up: …264.
    expect(
      convertAmount({ amount: 15_500_000n, fromScale: 2, toScale: 8, rate: '147250000', inverse: true }),
    ).toBe(105_263n)
    expect(
      convertAmount({
        amount: 15_500_000n,
        fromScale: 2,
        toScale: 8,
        rate: '147250000',
        inverse: true,
        rounding: 'up',
      }),
    ).toBe(105_264n)
  })

  test('behavior: zero rate, negative amount and bad scales are validation errors', () => {
    const invalid = expect.objectContaining({ code: 'validation_error' })
    expect(() => convertAmount({ amount: 1n, fromScale: 2, toScale: 2, rate: '0' })).toThrow(invalid)
    expect(() =>
      convertAmount({ amount: 1n, fromScale: 2, toScale: 2, rate: '0.000', inverse: true }),
    ).toThrow(invalid)
    expect(() => convertAmount({ amount: -1n, fromScale: 2, toScale: 2, rate: '1' })).toThrow(invalid)
    expect(() => convertAmount({ amount: 1n, fromScale: -1, toScale: 2, rate: '1' })).toThrow(invalid)
    expect(() => convertAmount({ amount: 1n, fromScale: 2, toScale: 2.5, rate: '1' })).toThrow(invalid)
  })
})

// A random currency: USD value of one unit as an exact decimal (1e-6 … 1e6), a spread and a scale.
const currency = fc.record({
  usdValue: fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 12 }))
    .map(([digits, places]): Rational => ({ numerator: digits, denominator: 10n ** BigInt(places) })),
  spreadBps: fc.integer({ min: 0, max: 1000 }),
  scale: fc.constantFrom(0, 2, 6, 8, 18),
})

describe('convertAmount with quoted rates (properties)', () => {
  test('property: a conversion never creates value (result ≤ amount × rate, exactly)', () => {
    fc.assert(
      fc.property(currency, currency, fc.bigInt({ min: 0n, max: 10n ** 30n }), (x, y, amount) => {
        const rate = quoteFxRate(x, y)
        fc.pre(rate !== '0.00000000')
        const out = convertAmount({ amount, fromScale: x.scale, toScale: y.scale, rate })
        const r = parseRational(rate)
        // out / 10^sy ≤ amount / 10^sx × r
        expect(
          out * r.denominator * 10n ** BigInt(x.scale) <= amount * r.numerator * 10n ** BigInt(y.scale),
        ).toBe(true)
        // ... and misses it by less than one target minor unit.
        expect(
          (out + 1n) * r.denominator * 10n ** BigInt(x.scale) > amount * r.numerator * 10n ** BigInt(y.scale),
        ).toBe(true)
      }),
    )
  })

  test('property: a quoted rate is the mid less both spreads, rounded down by less than 1e-8', () => {
    fc.assert(
      fc.property(currency, currency, (x, y) => {
        const quoted = parseRational(quoteFxRate(x, y))
        const keep = { numerator: BigInt(10_000 - x.spreadBps - y.spreadBps), denominator: 10_000n }
        const exact = multiplyRational(
          multiplyRational(x.usdValue, {
            numerator: y.usdValue.denominator,
            denominator: y.usdValue.numerator,
          }),
          keep,
        )
        // quoted ≤ exact < quoted + 1e-8
        expect(quoted.numerator * exact.denominator <= exact.numerator * quoted.denominator).toBe(true)
        expect(
          exact.numerator * 10n ** 8n * quoted.denominator <
            (quoted.numerator * 10n ** 8n + quoted.denominator) * exact.denominator,
        ).toBe(true)
      }),
    )
  })

  test('property: a round trip X → Y → X never gains and loses at most the spread and rate rounding plus one minor unit each way', () => {
    fc.assert(
      fc.property(currency, currency, fc.bigInt({ min: 0n, max: 10n ** 30n }), (x, y, amount) => {
        const there = quoteFxRate(x, y)
        const back = quoteFxRate(y, x)
        fc.pre(there !== '0.00000000' && back !== '0.00000000')
        const mid = convertAmount({ amount, fromScale: x.scale, toScale: y.scale, rate: there })
        const result = convertAmount({ amount: mid, fromScale: y.scale, toScale: x.scale, rate: back })
        expect(result <= amount).toBe(true)
        // loss ≤ amount·(1 − r1·r2) [spread + rate rounding] + one Y minor unit in X + one X minor unit.
        const r1 = parseRational(there)
        const r2 = parseRational(back)
        const product = multiplyRational(r1, r2)
        const scaleX = 10n ** BigInt(x.scale)
        const scaleY = 10n ** BigInt(y.scale)
        // Multiply the whole inequality by D = product.den · r2.den · scaleY to stay in integers.
        const loss = amount - result
        const lhs = loss * product.denominator * r2.denominator * scaleY
        const spreadPart = amount * (product.denominator - product.numerator) * r2.denominator * scaleY
        const oneY = r2.numerator * scaleX * product.denominator
        const oneX = product.denominator * r2.denominator * scaleY
        expect(lhs <= spreadPart + oneY + oneX).toBe(true)
      }),
    )
  })
})
