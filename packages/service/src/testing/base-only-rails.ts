import type { DevnetManifest } from '@tollgate/devnet'
import { getAddress, isAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deps } from '../deps.js'
import { createRails } from '../rails/create-rails.js'
import type { ChainEntry, DepositAddress, Rails } from '../rails/types.js'

/**
 * Rails for the x402 tests over a devnet's Base Sepolia: a one-chain registry, addresses from
 * fresh keys, screening that passes. Replaced by the real rails once they run on the devnet.
 */
export function createBaseOnlyRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  devnet: DevnetManifest,
): Rails {
  const network = devnet.networks['eip155:84532']
  const usdc = network?.assets.USDC
  if (!network || !usdc) {
    throw new Error('devnet without Base Sepolia USDC')
  }
  const entry: ChainEntry = {
    chain: 'base',
    network: 'eip155:84532',
    family: 'evm',
    assets: [
      { symbol: 'ETH', kind: 'native', address: null, decimals: 18, ledgerCurrency: null },
      {
        symbol: 'USDC',
        kind: 'erc20',
        address: usdc.address,
        decimals: usdc.decimals,
        ledgerCurrency: 'USDC',
        ...(usdc.eip712 ? { eip712: usdc.eip712 } : {}),
      },
    ],
    confirmations: 1,
    hasNode: true,
    explorerTxUrl: (hash) => `https://sepolia.basescan.org/tx/${hash}`,
  }
  const addresses = new Map<string, DepositAddress>()
  let index = 0
  return {
    ...createRails(deps),
    chains: {
      list: () => [entry],
      get: (_environment, chain) => (chain === 'base' ? entry : undefined),
      getByNetwork: (_environment, id) => (id === entry.network ? entry : undefined),
      findAsset: (_environment, chain, symbol) =>
        chain === 'base' ? entry.assets.find((a) => a.symbol === symbol) : undefined,
      isValidAddress: (chain, address) => chain === 'base' && isAddress(address),
    },
    addresses: {
      allocate: async (_db, input) => {
        const key = `${input.purpose}:${input.ownerId}:${input.chain}`
        const existing = [...addresses.values()].find((a) => `${a.purpose}:${a.ownerId}:${a.chain}` === key)
        if (existing) {
          return existing
        }
        index += 1
        const address = privateKeyToAccount(`0x${index.toString(16).padStart(64, 'a')}`).address
        const row: DepositAddress = {
          id: `addr_${index}`,
          network: entry.network,
          address,
          createdAt: new Date(),
          ...input,
        }
        addresses.set(address, row)
        return row
      },
      find: async (_db, input) =>
        isAddress(input.address) ? addresses.get(getAddress(input.address)) : undefined,
    },
    screening: { screen: async () => 'passed' },
  }
}
