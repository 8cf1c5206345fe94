import { DEFAULT_EVM_NETWORKS, DEVNET_USDT_MINT, SOLANA_DEVNET_NETWORK } from '@tollgate/devnet'
import { describe, expect, test } from 'vitest'
import { createChainRegistry } from './create-chain-registry.js'

describe('createChainRegistry', () => {
  test('default: every chain of the spec in both environments, none with a node', () => {
    const registry = createChainRegistry()
    for (const environment of ['live', 'test'] as const) {
      expect(registry.list(environment).map((e) => e.chain)).toEqual([
        'bitcoin',
        'ethereum',
        'solana',
        'bsc',
        'tron',
        'polygon',
        'base',
        'arbitrum',
        'celo',
        'dogecoin',
      ])
      expect(registry.list(environment).some((e) => e.hasNode)).toBe(false)
    }
    expect(registry.get('live', 'base')?.network).toBe('eip155:8453')
    expect(registry.get('test', 'base')?.network).toBe('eip155:84532')
    expect(registry.get('test', 'arbitrum')?.network).toBe('eip155:421614')
    expect(registry.get('test', 'bsc')?.network).toBe('eip155:97')
    expect(registry.get('test', 'solana')?.network).toBe('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1')
    expect(registry.get('test', 'ethereum')?.network).toBe('eip155:11155111')
    expect(registry.get('test', 'polygon')?.network).toBe('eip155:80002')
    expect(registry.get('test', 'celo')?.network).toBe('eip155:11142220')
    expect(registry.getByNetwork('live', 'eip155:42161')?.chain).toBe('arbitrum')
  })
  test('behavior: assets carry their scale per chain and the ledger currency they credit', () => {
    const registry = createChainRegistry()
    expect(registry.findAsset('live', 'bsc', 'usdt')).toMatchObject({
      kind: 'erc20',
      decimals: 18,
      ledgerCurrency: 'USDT',
    })
    expect(registry.findAsset('live', 'tron', 'USDT')).toMatchObject({ kind: 'trc20', decimals: 6 })
    expect(registry.findAsset('live', 'base', 'USDC')?.eip712).toEqual({ name: 'USD Coin', version: '2' })
    expect(registry.findAsset('live', 'solana', 'SOL')).toMatchObject({
      kind: 'native',
      address: null,
      ledgerCurrency: null,
    })
    expect(registry.findAsset('live', 'bitcoin', 'USDT')).toBeUndefined()
    expect(registry.get('live', 'base')?.explorerTxUrl('0xab')).toBe('https://basescan.org/tx/0xab')
  })
  test('behavior: a reachable network gets a node and the devnet tokens; confirmations can be replaced', () => {
    const registry = createChainRegistry({
      networks: {
        'eip155:84532': {
          rpcUrl: 'http://127.0.0.1:1',
          assets: {
            USDT: { symbol: 'USDT', address: '0x00000000000000000000000000000000000000aa', decimals: 6 },
          },
        },
      },
      confirmations: { test: { base: 3 } },
    })
    const base = registry.get('test', 'base')
    expect(base).toMatchObject({ hasNode: true, confirmations: 3 })
    expect(base?.assets.map((a) => a.symbol)).toEqual(['ETH', 'USDT'])
    expect(registry.get('live', 'base')?.hasNode).toBe(false)
    expect(registry.get('test', 'arbitrum')).toMatchObject({ hasNode: false, confirmations: 1 })
  })
  test('behavior: with the default devnet every EVM chain but none of bitcoin, tron, dogecoin has a node', () => {
    const networks = Object.fromEntries(
      [...DEFAULT_EVM_NETWORKS.map((n) => n.network), SOLANA_DEVNET_NETWORK].map((id) => [
        id,
        { rpcUrl: 'http://127.0.0.1:1' },
      ]),
    )
    const registry = createChainRegistry({ networks })
    expect(
      registry
        .list('test')
        .filter((e) => e.hasNode)
        .map((e) => e.chain),
    ).toEqual(['ethereum', 'solana', 'bsc', 'polygon', 'base', 'arbitrum', 'celo'])
    expect(registry.list('live').some((e) => e.hasNode)).toBe(false)
  })
  test("behavior: Solana USDT in the sandbox is the devnet's mint, an SPL token crediting USDT", () => {
    const registry = createChainRegistry()
    expect(registry.findAsset('test', 'solana', 'USDT')).toEqual({
      symbol: 'USDT',
      kind: 'spl',
      address: DEVNET_USDT_MINT,
      decimals: 6,
      ledgerCurrency: 'USDT',
      tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    })
    expect(registry.findAsset('test', 'celo', 'USDC')?.eip712).toEqual({ name: 'USDC', version: '2' })
  })
})
