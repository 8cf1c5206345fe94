import { AppError } from './app-error.js'

/** CAIP-2 id of Solana mainnet-beta. */
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
/** CAIP-2 id of Solana devnet (the local LiteSVM devnet answers to it too). */
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
/** CAIP-2 id of Solana testnet. */
export const SOLANA_TESTNET = 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z'

/** A network in CAIP-2 form, e.g. `eip155:84532` or `solana:EtWT…`. */
export type Network = `${string}:${string}`

/** The chain family of a network. */
export type NetworkFamily = 'evm' | 'svm'

// x402 v1 network names (the @x402 2.27 table) and their chain ids; the last block are names
// Tollgate also accepts for chains the v1 table lacks.
const V1_EVM_NETWORKS: Record<string, number> = {
  ethereum: 1,
  sepolia: 11155111,
  abstract: 2741,
  'abstract-testnet': 11124,
  base: 8453,
  'base-sepolia': 84532,
  avalanche: 43114,
  'avalanche-fuji': 43113,
  iotex: 4689,
  sei: 1329,
  'sei-testnet': 1328,
  polygon: 137,
  'polygon-amoy': 80002,
  peaq: 3338,
  story: 1514,
  educhain: 41923,
  'skale-base-sepolia': 324705682,
  megaeth: 4326,
  monad: 143,
  stable: 988,
  'stable-testnet': 2201,
  celo: 42220,
  flare: 14,
  arbitrum: 42161,
  'arbitrum-sepolia': 421614,
  bsc: 56,
  'bsc-testnet': 97,
}

const V1_SOLANA_NETWORKS: Record<string, Network> = {
  solana: SOLANA_MAINNET,
  'solana-devnet': SOLANA_DEVNET,
  'solana-testnet': SOLANA_TESTNET,
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/

/** Whether `value` is a syntactically valid CAIP-2 network id. */
export function isCaip2Network(value: string): value is Network {
  return CAIP2.test(value)
}

/** Whether `network` is an EVM network (`eip155:<chainId>` with a decimal chain id). */
export function isEvmNetwork(network: string): network is `eip155:${string}` {
  return /^eip155:[1-9]\d{0,15}$/.test(network)
}

/** Whether `network` is a Solana network (`solana:<genesis hash prefix>`). */
export function isSolanaNetwork(network: string): network is `solana:${string}` {
  return /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/.test(network)
}

/** The family of a CAIP-2 network, or `undefined` when Tollgate has no scheme for it. */
export function getNetworkFamily(network: string): NetworkFamily | undefined {
  if (isEvmNetwork(network)) {
    return 'evm'
  }
  return isSolanaNetwork(network) ? 'svm' : undefined
}

/** The EVM chain id of an `eip155:<id>` network (used in EIP-712 domains); throws otherwise. */
export function getEvmChainId(network: string): number {
  if (!isEvmNetwork(network)) {
    throw new AppError('invalid_network', {
      context: { network },
      message: `${network} is not an EVM network`,
    })
  }
  return Number(network.slice('eip155:'.length))
}

/**
 * Converts an x402 v1 network name (`base-sepolia`, `solana-devnet`) or an already-CAIP-2 id into
 * CAIP-2. Throws `invalid_network` for names Tollgate does not know.
 */
export function toCaip2Network(network: string): Network {
  if (isEvmNetwork(network) || isSolanaNetwork(network)) {
    return network
  }
  const chainId = V1_EVM_NETWORKS[network]
  if (chainId !== undefined) {
    return `eip155:${chainId}`
  }
  const solana = V1_SOLANA_NETWORKS[network]
  if (solana) {
    return solana
  }
  throw new AppError('invalid_network', { context: { network }, message: `unknown network "${network}"` })
}

/** The x402 v1 name of a CAIP-2 network (`eip155:84532` → `base-sepolia`), or `undefined` if it has none. */
export function toV1NetworkName(network: string): string | undefined {
  if (isEvmNetwork(network)) {
    const chainId = getEvmChainId(network)
    return Object.entries(V1_EVM_NETWORKS).find(([, id]) => id === chainId)?.[0]
  }
  return Object.entries(V1_SOLANA_NETWORKS).find(([, id]) => id === network)?.[0]
}
