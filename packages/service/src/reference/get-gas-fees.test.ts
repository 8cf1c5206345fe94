import { describe, expect, test } from 'vitest'
import { getGasFees } from './get-gas-fees.js'
import { createReferenceData, getChainAssets, getConfirmations } from './reference-data.js'

const devnet = {
  networks: {
    'eip155:84532': {
      network: 'eip155:84532',
      kind: 'evm' as const,
      chainId: 84532,
      rpcUrl: 'http://127.0.0.1:1',
      assets: {
        USDC: { symbol: 'USDC', address: '0xA', decimals: 6, transferMethods: ['eip3009' as const] },
        USDT: { symbol: 'USDT', address: '0xB', decimals: 6, transferMethods: ['permit2' as const] },
      },
    },
  },
}

describe('getGasFees', () => {
  test('reads EVM gas price and Solana rent where a reader exists, static values elsewhere', async () => {
    const data = createReferenceData(devnet)
    const fees = await getGasFees(data, {
      base: { evm: { getGasPrice: async () => 2_000_000_000n } },
      solana: { solana: { getMinimumBalanceForRentExemption: async (bytes) => BigInt(bytes) * 10_000n } },
    })
    expect(fees.base).toEqual({ eth: '0.000042', usdc: '0.00013', usdt: '0.00013' })
    expect(fees.solana).toEqual({ sol: '0.000005', usdc: '0.001655', usdt: '0.001655' })
    expect(fees.tron).toEqual({ trx: '1.1', usdt: '13.3959' })
    expect(Object.keys(fees).sort()).toEqual([
      'arbitrum',
      'base',
      'bitcoin',
      'bsc',
      'celo',
      'dogecoin',
      'ethereum',
      'polygon',
      'solana',
      'tron',
    ])
  })
  test('behavior: a failing node is provider_unavailable', async () => {
    const data = createReferenceData()
    const failing = { getGasPrice: async (): Promise<bigint> => Promise.reject(new Error('down')) }
    await expect(getGasFees(data, { bsc: { evm: failing } })).rejects.toMatchObject({
      code: 'provider_unavailable',
    })
  })
})

describe('createReferenceData', () => {
  test('devnet networks override token addresses and register the RPC', () => {
    const data = createReferenceData(devnet)
    expect(data.rpc).toEqual({ base: { kind: 'evm', rpcUrl: 'http://127.0.0.1:1' } })
    const assets = getChainAssets(data)
    expect(assets.base).toEqual([
      { asset: 'ETH', networkId: 'eip155:84532', metadata: { name: 'Ether', symbol: 'ETH', decimals: 18 } },
      {
        asset: 'USDC',
        networkId: 'eip155:84532',
        metadata: { name: 'USD Coin', symbol: 'USDC', decimals: 6 },
        contract: { address: '0xA', decimals: 6 },
      },
      {
        asset: 'USDT',
        networkId: 'eip155:84532',
        metadata: { name: 'Tether USD', symbol: 'USDT', decimals: 6 },
        contract: { address: '0xB', decimals: 6 },
      },
    ])
    expect(assets.bsc?.find((entry) => entry.asset === 'USDT')?.contract?.decimals).toBe(18)
    expect(getConfirmations(data, 'live')).toMatchObject({ ethereum: 12, bitcoin: 2, dogecoin: 6 })
    expect(getConfirmations(data, 'test').ethereum).toBe(1)
  })
})
