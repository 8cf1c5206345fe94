import { describe, expect, test } from 'vitest'
import { applySpread } from './apply-spread.js'

describe('applySpread', () => {
  test('default: takes the spread off and keeps 8 decimals', () => {
    expect(applySpread('1500.00000000', 25)).toBe('1496.25000000')
    expect(applySpread('1', 0)).toBe('1.00000000')
  })

  test('behavior: rounds down, also for rates with more than 8 decimals', () => {
    // 0.00066666666 × 0.9975 = 0.000664999...; floor at 8 decimals.
    expect(applySpread('0.00066666666', 25)).toBe('0.00066499')
    expect(applySpread('0.00000199', 5000)).toBe('0.00000099')
  })

  test('behavior: a malformed rate, a negative spread or a rate that rounds to zero throws', () => {
    expect(() => applySpread('1e3', 25)).toThrow()
    expect(() => applySpread('1.5', -1)).toThrow()
    expect(() => applySpread('0.00000001', 25)).toThrow('rounds to zero')
  })
})
