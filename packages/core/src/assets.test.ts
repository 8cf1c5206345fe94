import { describe, expect, test } from 'vitest'
import { AppError, isAppError } from './app-error.js'
import { createAssetRegistry } from './assets.js'

describe('createAssetRegistry', () => {
  test('default: real chains’ decimals and EIP-712 domains', () => {
    const registry = createAssetRegistry()
    expect(registry.get('eip155:8453', 'USDC').eip712).toEqual({ name: 'USD Coin', version: '2' })
    expect(registry.get('eip155:84532', 'usdc').eip712).toEqual({ name: 'USDC', version: '2' })
    expect(registry.get('eip155:56', 'USDT').decimals).toBe(18)
    expect(registry.get('eip155:56', 'USDT').transferMethods).toEqual(['permit2'])
    expect(registry.get('eip155:1', 'USDT').decimals).toBe(6)
    expect(registry.find('eip155:8453', '0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913')?.symbol).toBe('USDC')
  })

  test('behavior: added entries replace the same address and win symbol lookups', () => {
    const registry = createAssetRegistry([
      {
        network: 'eip155:84532',
        symbol: 'USDT',
        address: '0x2222222222222222222222222222222222222222',
        decimals: 6,
        transferMethods: ['permit2'],
      },
    ])
    expect(registry.get('eip155:84532', 'USDT').address).toBe('0x2222222222222222222222222222222222222222')
    expect(registry.list('eip155:84532')).toHaveLength(2)
  })

  test('behavior: unknown assets throw unknown_asset', () => {
    try {
      createAssetRegistry().get('eip155:8453', 'DOGE')
      expect.unreachable()
    } catch (error) {
      expect(isAppError(error, 'unknown_asset')).toBe(true)
      expect((error as AppError<'unknown_asset'>).context).toEqual({ network: 'eip155:8453', asset: 'DOGE' })
      expect(error).toBeInstanceOf(AppError)
    }
  })
})
