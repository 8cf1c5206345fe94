import { SOLANA_DEVNET } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { getSupported } from './get-supported.js'
import { createFakeScheme } from './testing/create-fake-scheme.js'

describe('getSupported', () => {
  test('default: one exact kind per network and version, v1 names where they exist', () => {
    const eip3009 = createFakeScheme({ networks: ['eip155:84532', 'eip155:31337'], signers: ['0xa'] })
    const permit2 = createFakeScheme({ name: 'permit2', networks: ['eip155:84532'], signers: ['0xa', '0xb'] })
    const solana = createFakeScheme({
      name: 'solana',
      networks: [SOLANA_DEVNET],
      signers: ['Fee1'],
      extra: { feePayer: 'Fee1' },
    })
    expect(getSupported([eip3009, permit2, solana])).toEqual({
      kinds: [
        { x402Version: 2, scheme: 'exact', network: 'eip155:84532' },
        { x402Version: 2, scheme: 'exact', network: 'eip155:31337' },
        { x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET, extra: { feePayer: 'Fee1' } },
        { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
        { x402Version: 1, scheme: 'exact', network: 'solana-devnet', extra: { feePayer: 'Fee1' } },
      ],
      extensions: [],
      signers: { 'eip155:*': ['0xa', '0xb'], 'solana:*': ['Fee1'] },
    })
  })

  test('behavior: extras of schemes sharing a kind are merged', () => {
    const a = createFakeScheme({ extra: { a: 1 } })
    const b = createFakeScheme({ name: 'permit2', extra: { b: 2 } })
    expect(getSupported([a, b]).kinds[0]).toEqual({
      x402Version: 2,
      scheme: 'exact',
      network: 'eip155:84532',
      extra: { a: 1, b: 2 },
    })
  })

  test('behavior: no schemes, no kinds', () => {
    expect(getSupported([])).toEqual({ kinds: [], extensions: [], signers: {} })
  })
})
