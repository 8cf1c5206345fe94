import { describe, expect, test } from 'vitest'
import { applyBasisPoints, convertAtRate, rescale } from './session-money.js'

describe('convertAtRate', () => {
  test('default: 100.00 USD at 1 USDC per USD is 100.000000 USDC', () => {
    expect(convertAtRate({ amount: 10_000n, fromScale: 2, toScale: 6, rate: '1', rounding: 'down' })).toBe(
      100_000_000n,
    )
  })

  test('behavior: rounds once at the end, down or up', () => {
    // 1.00 USD at 0.00033333 ETH/USD = 0.00033333 ETH exactly; 0.01 USD at 1/3 rounds.
    const third = { amount: 1n, fromScale: 2, toScale: 6, rate: '0.33333333' }
    expect(convertAtRate({ ...third, rounding: 'down' })).toBe(3333n)
    expect(convertAtRate({ ...third, rounding: 'up' })).toBe(3334n)
    expect(
      convertAtRate({ amount: 100n, fromScale: 2, toScale: 18, rate: '0.00033333', rounding: 'up' }),
    ).toBe(333_330_000_000_000n)
  })

  test('behavior: a malformed rate is an internal error, not a wrong amount', () => {
    expect(() =>
      convertAtRate({ amount: 1n, fromScale: 2, toScale: 2, rate: '1e3', rounding: 'down' }),
    ).toThrow(/not a decimal rate/)
  })
})

describe('rescale and applyBasisPoints', () => {
  test('default: 18 to 6 decimals rounds down, 6 to 18 is exact', () => {
    expect(rescale(1_234_567_890_123_456_789n, 18, 6)).toBe(1_234_567n)
    expect(rescale(5n, 6, 18)).toBe(5_000_000_000_000n)
  })

  test('behavior: basis points round half-up', () => {
    expect(applyBasisPoints(150n, 100)).toBe(2n) // 1.5 → 2
    expect(applyBasisPoints(149n, 100)).toBe(1n) // 1.49 → 1
    expect(applyBasisPoints(100_000_000n, 100)).toBe(1_000_000n)
  })
})
