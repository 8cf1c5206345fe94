import { describe, expect, test } from 'vitest'
import {
  getEvmChainId,
  getNetworkFamily,
  isCaip2Network,
  SOLANA_DEVNET,
  toCaip2Network,
  toV1NetworkName,
} from './networks.js'

describe('toCaip2Network', () => {
  test('default: v1 names and CAIP-2 ids', () => {
    expect(toCaip2Network('base-sepolia')).toBe('eip155:84532')
    expect(toCaip2Network('base')).toBe('eip155:8453')
    expect(toCaip2Network('solana-devnet')).toBe(SOLANA_DEVNET)
    expect(toCaip2Network('eip155:97')).toBe('eip155:97')
  })
  test('behavior: unknown names throw invalid_network', () => {
    expect(() => toCaip2Network('narnia')).toThrowError(/unknown network/)
  })
})

describe('toV1NetworkName', () => {
  test('default', () => {
    expect(toV1NetworkName('eip155:84532')).toBe('base-sepolia')
    expect(toV1NetworkName(SOLANA_DEVNET)).toBe('solana-devnet')
    expect(toV1NetworkName('eip155:999999')).toBeUndefined()
  })
})

describe('getEvmChainId / getNetworkFamily / isCaip2Network', () => {
  test('default', () => {
    expect(getEvmChainId('eip155:421614')).toBe(421614)
    expect(getNetworkFamily('eip155:1')).toBe('evm')
    expect(getNetworkFamily(SOLANA_DEVNET)).toBe('svm')
    expect(getNetworkFamily('cosmos:hub')).toBeUndefined()
    expect(isCaip2Network('eip155:8453')).toBe(true)
    expect(isCaip2Network('base')).toBe(false)
  })
  test('behavior: malformed EVM ids are not EVM networks', () => {
    expect(() => getEvmChainId('eip155:0x2105')).toThrowError()
    expect(getNetworkFamily('eip155:01')).toBeUndefined()
  })
})
