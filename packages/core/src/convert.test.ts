import { describe, expect, test } from 'vitest'
import { normalizeFacilitatorRequest, toPaymentRequirements, toPaymentRequirementsV1 } from './convert.js'
import { getSchemeName } from './scheme.js'

const v1Requirements = {
  scheme: 'exact',
  network: 'base-sepolia',
  maxAmountRequired: '10000',
  resource: 'http://localhost/paid',
  description: 'a thing',
  mimeType: 'application/json',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 60,
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  extra: { name: 'USDC', version: '2' },
}

describe('toPaymentRequirements / toPaymentRequirementsV1', () => {
  test('default: round trip', () => {
    const v2 = toPaymentRequirements(v1Requirements)
    expect(v2).toEqual({
      scheme: 'exact',
      network: 'eip155:84532',
      amount: '10000',
      asset: v1Requirements.asset,
      payTo: v1Requirements.payTo,
      maxTimeoutSeconds: 60,
      extra: { name: 'USDC', version: '2' },
    })
    expect(toPaymentRequirementsV1(v2, { url: 'http://localhost/paid', description: 'a thing' })).toEqual(
      v1Requirements,
    )
  })
  test('behavior: a network without a v1 name gives undefined', () => {
    const v2 = { ...toPaymentRequirements(v1Requirements), network: 'eip155:31337' as const }
    expect(toPaymentRequirementsV1(v2, { url: 'http://x' })).toBeUndefined()
  })
})

describe('normalizeFacilitatorRequest', () => {
  test('default: a v1 request becomes v2 with accepted built from the payload', () => {
    const normalized = normalizeFacilitatorRequest({
      x402Version: 1,
      paymentPayload: {
        x402Version: 1,
        scheme: 'exact',
        network: 'base-sepolia',
        payload: { signature: '0x' },
      },
      paymentRequirements: v1Requirements,
    })
    expect(normalized.x402Version).toBe(1)
    expect(normalized.paymentPayload.accepted).toEqual(normalized.paymentRequirements)
    expect(normalized.paymentPayload.payload).toEqual({ signature: '0x' })
  })
  test('behavior: a v1 payload naming another network keeps it in accepted (caught by verify)', () => {
    const normalized = normalizeFacilitatorRequest({
      paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base', payload: {} },
      paymentRequirements: v1Requirements,
    })
    expect(normalized.paymentPayload.accepted.network).toBe('eip155:8453')
    expect(normalized.paymentRequirements.network).toBe('eip155:84532')
  })
})

describe('getSchemeName', () => {
  test('default', () => {
    expect(getSchemeName({ scheme: 'exact', network: 'eip155:8453' })).toBe('eip3009')
    expect(
      getSchemeName({ scheme: 'exact', network: 'eip155:8453', extra: { assetTransferMethod: 'permit2' } }),
    ).toBe('permit2')
    expect(getSchemeName({ scheme: 'exact', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' })).toBe(
      'solana',
    )
    expect(getSchemeName({ scheme: 'upto', network: 'eip155:8453' })).toBeUndefined()
  })
})
