// Builds Tollgate's facilitator in-process for a running devnet: one relayer per EVM network (the
// devnet's relayer keys) serving eip3009 and permit2, and the Solana scheme with the devnet's fee
// payers. Used by paywalled-api.ts and the middleware's e2e tests; a real deployment would run the
// standalone facilitator (facilitator.config.json) or build the same from its own config.
import { createSolanaRpc } from '@solana/kit'
import { toSolanaSigner } from '@tollgate/agent'
import { type Asset, createAssetRegistry, isEvmNetwork, type SchemeFacilitator } from '@tollgate/core'
import type { DevnetManifest } from '@tollgate/devnet'
import { toViemChain } from '@tollgate/devnet'
import {
  createEip3009Facilitator,
  createPermit2Facilitator,
  createRelayer,
  type Relayer,
} from '@tollgate/evm'
import { createFacilitator, type Facilitator } from '@tollgate/facilitator'
import { createSolanaFacilitator } from '@tollgate/svm'
import { createPublicClient, type Hex, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** Every devnet token as an {@link Asset} (devnet tokens sit at testnet addresses, plus a few of their own). */
export function getDevnetAssets(manifest: DevnetManifest): Asset[] {
  return Object.values(manifest.networks).flatMap((network) =>
    Object.values(network.assets).map((asset) => ({
      ...asset,
      network: network.network as Asset['network'],
    })),
  )
}

/** An in-process facilitator over the devnet's chains (no database: the in-memory settlement store). */
export async function createDevnetFacilitator(
  manifest: DevnetManifest,
): Promise<{ facilitator: Facilitator; close(): void }> {
  const assets = createAssetRegistry(getDevnetAssets(manifest))
  const relayerKeys = (network: string) =>
    manifest.wallets.filter((w) => w.network === network && w.role === 'relayer').map((w) => w.privateKey)
  const evmNetworks: Record<string, { client: PublicClient; relayer: Relayer }> = {}
  const solanaNetworks: Parameters<typeof createSolanaFacilitator>[0]['networks'] = {}
  for (const network of Object.values(manifest.networks)) {
    if (isEvmNetwork(network.network)) {
      const client = createPublicClient({
        chain: toViemChain(network),
        transport: http(),
        pollingInterval: 50,
      })
      const accounts = relayerKeys(network.network).map((key) => privateKeyToAccount(key as Hex))
      const relayer = createRelayer({ network: network.network, client, accounts, pollingIntervalMs: 50 })
      evmNetworks[network.network] = { client, relayer }
    } else {
      const feePayers = await Promise.all(relayerKeys(network.network).map((key) => toSolanaSigner(key)))
      solanaNetworks[network.network] = { rpc: createSolanaRpc(network.rpcUrl), feePayers }
    }
  }
  const schemes: SchemeFacilitator[] = []
  if (Object.keys(evmNetworks).length > 0) {
    schemes.push(
      createEip3009Facilitator({ networks: evmNetworks, assets }),
      createPermit2Facilitator({ networks: evmNetworks, assets }),
    )
  }
  if (Object.keys(solanaNetworks).length > 0) {
    schemes.push(createSolanaFacilitator({ networks: solanaNetworks, assets, confirmPollIntervalMs: 50 }))
  }
  const facilitator = createFacilitator({ schemes })
  return { facilitator, close: () => facilitator.close() }
}
