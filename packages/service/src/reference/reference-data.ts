import type { DevnetManifest } from '@tollgate/devnet'
import type { ChainEntry } from '../rails/types.js'
import { type ChainInfo, type ChainName, chainTable, tokenNames } from './chains.js'

/** An RPC endpoint the service reads fees from: an EVM JSON-RPC or a Solana JSON-RPC URL. */
export type ChainRpc = { kind: 'evm' | 'svm'; rpcUrl: string }

/** The reference table the app serves, with the RPC endpoints configured for some chains. */
export type ReferenceData = { chains: readonly ChainInfo[]; rpc: Partial<Record<ChainName, ChainRpc>> }

/**
 * Builds the reference data; with a devnet manifest, chains whose `networkId` the devnet runs get
 * the devnet's token addresses and decimals and its RPC URL (the devnet mirrors the public testnets).
 */
export function createReferenceData(devnet?: Pick<DevnetManifest, 'networks'>): ReferenceData {
  const rpc: Partial<Record<ChainName, ChainRpc>> = {}
  const chains = chainTable.map((info): ChainInfo => {
    const network = devnet?.networks[info.networkId]
    if (!network) {
      return info
    }
    rpc[info.chain] = { kind: network.kind, rpcUrl: network.rpcUrl }
    const tokens = Object.values(network.assets).map((asset) => ({
      symbol: asset.symbol,
      name: tokenNames[asset.symbol] ?? asset.symbol,
      address: asset.address,
      decimals: asset.decimals,
      ...(asset.eip712 ? { eip712: asset.eip712 } : {}),
    }))
    return { ...info, tokens }
  })
  return { chains, rpc }
}

/** A chain asset entry of the spec: native coins have no `contract`. */
export type ChainAssetEntry = {
  asset: string
  networkId: string
  metadata: { name: string; symbol: string; decimals: number }
  contract?: { address: string; decimals: number }
}

/** The chain asset entries of every chain, keyed by chain name (GET /blockchain/assets, /recipients/chains). */
export function getChainAssets(data: ReferenceData): Record<string, ChainAssetEntry[]> {
  const result: Record<string, ChainAssetEntry[]> = {}
  for (const info of data.chains) {
    const native: ChainAssetEntry = {
      asset: info.native.symbol,
      networkId: info.networkId,
      metadata: { ...info.native },
    }
    const tokens = info.tokens.map((token) => ({
      asset: token.symbol,
      networkId: info.networkId,
      metadata: { name: token.name, symbol: token.symbol, decimals: token.decimals },
      contract: { address: token.address, decimals: token.decimals },
    }))
    result[info.chain] = [native, ...tokens]
  }
  return result
}

/**
 * The chain asset entries of registry chains, keyed by chain name: what a live key is answered (the
 * mainnet CAIP-2 ids and the tokens the service accepts there, configured ones included).
 */
export function getRegistryChainAssets(entries: readonly ChainEntry[]): Record<string, ChainAssetEntry[]> {
  const result: Record<string, ChainAssetEntry[]> = {}
  for (const entry of entries) {
    const info = chainTable.find((row) => row.chain === entry.chain)
    result[entry.chain] = entry.assets.map((asset): ChainAssetEntry => {
      const name =
        asset.kind === 'native'
          ? (info?.native.name ?? asset.symbol)
          : (tokenNames[asset.symbol] ?? asset.symbol)
      const metadata = { name, symbol: asset.symbol, decimals: asset.decimals }
      return asset.address === null
        ? { asset: asset.symbol, networkId: entry.network, metadata }
        : {
            asset: asset.symbol,
            networkId: entry.network,
            metadata,
            contract: { address: asset.address, decimals: asset.decimals },
          }
    })
  }
  return result
}

/** Confirmations required for finality per chain, for a key environment. */
export function getConfirmations(data: ReferenceData, environment: 'test' | 'live'): Record<string, number> {
  return Object.fromEntries(data.chains.map((info) => [info.chain, info.confirmations[environment]]))
}
