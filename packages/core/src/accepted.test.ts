import { describe, expect, test } from 'vitest'
import { findAcceptedMismatch, isDeepEqual } from './accepted.js'
import type { PaymentRequirements } from './schemas/payment-requirements.js'

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
}

describe('findAcceptedMismatch', () => {
  test('default: equal requirements match; EVM addresses case-insensitively; extra may be a superset', () => {
    expect(findAcceptedMismatch(requirements, requirements)).toBeUndefined()
    const accepted = {
      ...requirements,
      asset: requirements.asset.toLowerCase(),
      extra: { ...requirements.extra, note: 'client hint' },
    }
    expect(findAcceptedMismatch(accepted, requirements)).toBeUndefined()
  })

  test('behavior: names the first differing field', () => {
    expect(findAcceptedMismatch({ ...requirements, network: 'eip155:8453' }, requirements)).toBe('network')
    expect(findAcceptedMismatch({ ...requirements, amount: '1' }, requirements)).toBe('amount')
    expect(findAcceptedMismatch({ ...requirements, maxTimeoutSeconds: 3600 }, requirements)).toBe(
      'maxTimeoutSeconds',
    )
    expect(
      findAcceptedMismatch({ ...requirements, extra: { name: 'USD Coin', version: '2' } }, requirements),
    ).toBe('extra.name')
    expect(findAcceptedMismatch({ ...requirements, resourceHint: 'x' }, requirements)).toBe('resourceHint')
  })

  test('behavior: Solana addresses are case-sensitive and blockhash hints are ignored', () => {
    const svm: PaymentRequirements = {
      ...requirements,
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      extra: { feePayer: 'Fee111', recentBlockhash: 'abc' },
    }
    expect(findAcceptedMismatch({ ...svm, extra: { feePayer: 'Fee111' } }, svm)).toBeUndefined()
    expect(findAcceptedMismatch({ ...svm, asset: svm.asset.toLowerCase() }, svm)).toBe('asset')
  })
})

describe('isDeepEqual', () => {
  test('default', () => {
    expect(isDeepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true)
    expect(isDeepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true)
    expect(isDeepEqual({ a: 1 }, { a: 1, b: null })).toBe(false)
    expect(isDeepEqual([1], { 0: 1 })).toBe(false)
  })
})
