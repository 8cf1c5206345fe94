import { AppError, createAssetRegistry } from '@tollgate/core'
import { getAddress } from 'viem'
import { describe, expect, test } from 'vitest'
import { createPermit2Server } from '../permit2/server.js'
import { createEip3009Server } from './server.js'

const registry = createAssetRegistry()
const usdc = registry.get('eip155:84532', 'USDC')
const bscUsdt = registry.get('eip155:97', 'USDT')
const payTo = '0x00000000000000000000000000000000000000bb'

describe('createEip3009Server', () => {
  test('default: exact requirements with the EIP-712 domain and a 300 s timeout', () => {
    expect(createEip3009Server().createRequirements({ asset: usdc, amount: 10_000n, payTo })).toEqual({
      scheme: 'exact',
      network: 'eip155:84532',
      amount: '10000',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      payTo: getAddress(payTo),
      maxTimeoutSeconds: 300,
      extra: { name: 'USDC', version: '2' },
    })
  })

  test('behavior: refuses assets without EIP-3009, zero amounts and bad payTo', () => {
    const server = createEip3009Server()
    expect(() => server.createRequirements({ asset: bscUsdt, amount: 1n, payTo })).toThrow(AppError)
    expect(() => server.createRequirements({ asset: usdc, amount: 0n, payTo })).toThrow(/greater than zero/)
    expect(() => server.createRequirements({ asset: usdc, amount: 1n, payTo: 'nope' })).toThrow(
      /not an EVM address/,
    )
  })
})

describe('createPermit2Server', () => {
  test('default: assetTransferMethod permit2, extra merged, custom timeout', () => {
    const requirements = createPermit2Server().createRequirements({
      asset: bscUsdt,
      amount: 10n ** 18n,
      payTo,
      maxTimeoutSeconds: 60,
      extra: { note: 'x' },
    })
    expect(requirements).toMatchObject({
      network: 'eip155:97',
      amount: '1000000000000000000',
      maxTimeoutSeconds: 60,
      extra: { assetTransferMethod: 'permit2', note: 'x' },
    })
  })
})
