import { isAppError } from '@tollgate/core'
import { expect, test } from 'vitest'
import { parsePageMoney } from './save-payment-page.js'

test('parsePageMoney reads a JSON number through its decimal form, never float arithmetic', () => {
  expect(parsePageMoney(1500.5, 'minAmount')).toBe(150050n)
  expect(parsePageMoney(0.3, 'price')).toBe(30n)
  expect(parsePageMoney(19.99, 'price')).toBe(1999n)
  expect(parsePageMoney(1e21, 'price')).toBe(10n ** 23n)
  expect(parsePageMoney(0.01, 'price')).toBe(1n)
})

test('parsePageMoney refuses zero, negatives, more than 2 decimals and non-finite numbers as a 400 on the field', () => {
  for (const value of [0, -1, 1.005, 0.1 + 0.2, 1e-7, Number.NaN, Number.POSITIVE_INFINITY]) {
    let caught: unknown
    try {
      parsePageMoney(value, 'products.0.price')
    } catch (error) {
      caught = error
    }
    expect(isAppError(caught, 'validation_error'), String(value)).toBe(true)
    expect((caught as { context: { param: string } }).context.param).toBe('products.0.price')
  }
})
