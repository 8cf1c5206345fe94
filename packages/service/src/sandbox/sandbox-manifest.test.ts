import {
  DEFAULT_EVM_NETWORKS,
  DEVNET_USDT_MINT,
  type DevnetManifest,
  type DevnetNetwork,
  SOLANA_DEVNET_NETWORK,
} from '@tollgate/devnet'
import { describe, expect, test } from 'vitest'
import { createSandboxManifest } from './sandbox-manifest.js'

// The default devnet's networks as its manifest names them (no chain is started here).
function defaultDevnetManifest(): DevnetManifest {
  const networks: Record<string, DevnetNetwork> = {}
  for (const config of DEFAULT_EVM_NETWORKS) {
    networks[config.network] = {
      network: config.network,
      kind: 'evm',
      chainId: config.chainId,
      rpcUrl: `http://127.0.0.1:${config.chainId % 60_000}`,
      assets: Object.fromEntries(
        config.tokens.map((t) => [
          t.symbol,
          { symbol: t.symbol, address: t.address, decimals: t.decimals, transferMethods: t.transferMethods },
        ]),
      ),
    }
  }
  networks[SOLANA_DEVNET_NETWORK] = {
    network: SOLANA_DEVNET_NETWORK,
    kind: 'svm',
    rpcUrl: 'http://127.0.0.1:9',
    assets: {
      USDT: { symbol: 'USDT', address: DEVNET_USDT_MINT, decimals: 6, transferMethods: ['solana'] },
    },
  }
  return { networks, wallets: [] }
}

describe('createSandboxManifest', () => {
  test('behavior: chains maps every chain the default devnet runs to its network, and no other', () => {
    const manifest = createSandboxManifest({
      baseUrl: 'http://127.0.0.1:4020',
      apiKey: 'sk_test_x',
      devnet: defaultDevnetManifest(),
    })
    expect(manifest.chains).toEqual({
      ethereum: 'eip155:11155111',
      solana: SOLANA_DEVNET_NETWORK,
      bsc: 'eip155:97',
      polygon: 'eip155:80002',
      base: 'eip155:84532',
      arbitrum: 'eip155:421614',
      celo: 'eip155:11142220',
    })
    // Every devnet network is some chain of the spec: none is left unnamed.
    expect(new Set(Object.values(manifest.chains))).toEqual(new Set(Object.keys(manifest.networks)))
    expect(manifest.networks[SOLANA_DEVNET_NETWORK]?.assets.USDT?.address).toBe(DEVNET_USDT_MINT)
  })
})
