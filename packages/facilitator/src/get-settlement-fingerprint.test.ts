import type { PaymentPayload, PaymentRequirements } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { getSettlementFingerprint } from './get-settlement-fingerprint.js'
import { buildFakeRequest } from './testing/create-fake-scheme.js'

describe('getSettlementFingerprint', () => {
  test('default: independent of key order', () => {
    const { paymentPayload, paymentRequirements } = buildFakeRequest()
    const reordered = Object.fromEntries(Object.entries(paymentRequirements).reverse()) as PaymentRequirements
    expect(getSettlementFingerprint(paymentPayload, reordered)).toBe(
      getSettlementFingerprint(paymentPayload, paymentRequirements),
    )
  })

  test('behavior: a payload nested past 64 levels is invalid_request, not a stack overflow', () => {
    const { paymentPayload, paymentRequirements } = buildFakeRequest()
    let deep: unknown = 1
    for (let i = 0; i < 20_000; i += 1) {
      deep = [deep]
    }
    const payment = { ...paymentPayload, payload: { junk: deep } } as PaymentPayload
    expect(() => getSettlementFingerprint(payment, paymentRequirements)).toThrowError(
      expect.objectContaining({ code: 'invalid_request' }),
    )
  })
})
