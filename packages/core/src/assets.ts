import { AppError } from './app-error.js'
import { isEvmNetwork, type Network, SOLANA_DEVNET, SOLANA_MAINNET } from './networks.js'

/**
 * Tollgate's scheme names. On the wire all three are x402 `exact`: `eip3009` and `permit2` are
 * exact-EVM with `extra.assetTransferMethod` eip3009 (default) or permit2; `solana` is exact-SVM.
 */
export type SchemeName = 'eip3009' | 'permit2' | 'solana'

/** A token Tollgate can take payment in, on one network. Decimals belong to (network, asset). */
export type Asset = {
  network: Network
  symbol: string
  /** Token contract (EVM, checksummed) or SPL mint (base58). */
  address: string
  decimals: number
  /** The token's EIP-712 domain name and version (EVM tokens with EIP-3009 or EIP-2612). */
  eip712?: { name: string; version: string }
  /** Schemes this token can be paid with on this network. */
  transferMethods: readonly SchemeName[]
  /** Owning SPL program (Solana): Token or Token-2022. */
  tokenProgram?: string
}

const SPL_TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const EIP3009_PERMIT2: readonly SchemeName[] = ['eip3009', 'permit2']
const PERMIT2_ONLY: readonly SchemeName[] = ['permit2']
const usdc = (network: Network, address: string, name: string): Asset => ({
  network,
  symbol: 'USDC',
  address,
  decimals: 6,
  eip712: { name, version: '2' },
  transferMethods: EIP3009_PERMIT2,
})
const plain = (network: Network, symbol: string, address: string, decimals: number): Asset => ({
  network,
  symbol,
  address,
  decimals,
  transferMethods: PERMIT2_ONLY,
})

/**
 * Stablecoins on the networks Tollgate knows, as each chain really deploys them (addresses,
 * decimals, EIP-712 domains: Base mainnet USDC is "USD Coin", Base Sepolia USDC is "USDC"; USDT
 * and USDC on BSC have 18 decimals and no EIP-3009). Devnet or custom tokens are added at run time
 * with {@link AssetRegistry.add}.
 */
export const DEFAULT_ASSETS: readonly Asset[] = [
  usdc('eip155:8453', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USD Coin'),
  plain('eip155:8453', 'USDT', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', 6),
  usdc('eip155:84532', '0x036CbD53842c5426634e7929541eC2318f3dCF7e', 'USDC'),
  usdc('eip155:42161', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 'USD Coin'),
  {
    // USDT0 on Arbitrum One: the upgraded USDT contract, with EIP-3009 (domain "USD₮0" / "1").
    network: 'eip155:42161',
    symbol: 'USDT',
    address: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
    decimals: 6,
    eip712: { name: 'USD₮0', version: '1' },
    transferMethods: EIP3009_PERMIT2,
  },
  usdc('eip155:421614', '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', 'USD Coin'),
  plain('eip155:56', 'USDC', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 18),
  plain('eip155:56', 'USDT', '0x55d398326f99059fF775485246999027B3197955', 18),
  plain('eip155:97', 'USDC', '0x64544969ed7EBf5f083679233325356EbE738930', 18),
  plain('eip155:97', 'USDT', '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd', 18),
  usdc('eip155:1', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USD Coin'),
  plain('eip155:1', 'USDT', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 6),
  usdc('eip155:137', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'USD Coin'),
  plain('eip155:137', 'USDT', '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', 6),
  usdc('eip155:42220', '0xcebA9300f2b948710d2653dD7B07f33A8B32118C', 'USDC'),
  {
    network: 'eip155:42220',
    symbol: 'USDT',
    address: '0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e',
    decimals: 6,
    eip712: { name: 'Tether USD', version: '1' },
    transferMethods: EIP3009_PERMIT2,
  },
  {
    network: SOLANA_MAINNET,
    symbol: 'USDC',
    address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    decimals: 6,
    transferMethods: ['solana'],
    tokenProgram: SPL_TOKEN,
  },
  {
    network: SOLANA_MAINNET,
    symbol: 'USDT',
    address: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    decimals: 6,
    transferMethods: ['solana'],
    tokenProgram: SPL_TOKEN,
  },
  {
    network: SOLANA_DEVNET,
    symbol: 'USDC',
    address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
    decimals: 6,
    transferMethods: ['solana'],
    tokenProgram: SPL_TOKEN,
  },
]

/** A lookup of {@link Asset}s by network and address or symbol; entries added later win. */
export class AssetRegistry {
  readonly #byNetwork = new Map<string, Asset[]>()

  constructor(entries: readonly Asset[] = DEFAULT_ASSETS) {
    for (const entry of entries) {
      this.add(entry)
    }
  }

  /** Adds an asset, replacing any entry with the same network and address. */
  add(asset: Asset): void {
    const list = (this.#byNetwork.get(asset.network) ?? []).filter(
      (a) => !sameAddress(asset.network, a.address, asset.address),
    )
    list.unshift(asset)
    this.#byNetwork.set(asset.network, list)
  }

  /** The asset with this address (case-insensitive on EVM) or symbol on `network`, if any. */
  find(network: string, addressOrSymbol: string): Asset | undefined {
    const list = this.#byNetwork.get(network) ?? []
    return (
      list.find((a) => sameAddress(network, a.address, addressOrSymbol)) ??
      list.find((a) => a.symbol.toUpperCase() === addressOrSymbol.toUpperCase())
    )
  }

  /** Like {@link find}, but throws `unknown_asset` when there is none. */
  get(network: string, addressOrSymbol: string): Asset {
    const asset = this.find(network, addressOrSymbol)
    if (!asset) {
      throw new AppError('unknown_asset', {
        context: { network, asset: addressOrSymbol },
        message: `no asset ${addressOrSymbol} on ${network}`,
      })
    }
    return asset
  }

  /** Every asset, or those of one network. */
  list(network?: string): Asset[] {
    return network ? [...(this.#byNetwork.get(network) ?? [])] : [...this.#byNetwork.values()].flat()
  }
}

/** Whether two addresses are the same on `network` (EVM hex is case-insensitive; base58 is not). */
export function sameAddress(network: string, a: string, b: string): boolean {
  return isEvmNetwork(network) ? a.toLowerCase() === b.toLowerCase() : a === b
}

/** Creates an asset registry holding {@link DEFAULT_ASSETS} plus `extra` entries (e.g. devnet tokens). */
export function createAssetRegistry(extra: readonly Asset[] = []): AssetRegistry {
  return new AssetRegistry([...DEFAULT_ASSETS, ...extra])
}
