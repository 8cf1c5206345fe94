import type { TransferMethod } from '../types.js'
import { DEVNET_USDT_ADDRESS } from './addresses.js'

/**
 * One token the devnet places on an EVM chain. `contract` picks the fixture: `UsdcLike` (EIP-3009 and
 * EIP-2612; its EIP-712 domain is `{ name, version: eip712Version }`) or `UsdtLike` (plain ERC-20).
 */
export type EvmTokenConfig = {
  symbol: string
  address: `0x${string}`
  contract: 'UsdcLike' | 'UsdtLike'
  /** ERC-20 `name()`; for `UsdcLike` also the EIP-712 domain name, as in Circle's FiatToken. */
  name: string
  decimals: number
  eip712Version?: string
  transferMethods: TransferMethod[]
}

/** One anvil chain: its CAIP-2 id, chain id and tokens. */
export type EvmNetworkConfig = {
  network: `eip155:${number}`
  chainId: number
  tokens: EvmTokenConfig[]
}

const usdc = (address: `0x${string}`, name: string): EvmTokenConfig => ({
  symbol: 'USDC',
  address,
  contract: 'UsdcLike',
  name,
  decimals: 6,
  eip712Version: '2',
  transferMethods: ['eip3009', 'permit2'],
})

const plain = (symbol: string, address: `0x${string}`, name: string, decimals: number): EvmTokenConfig => ({
  symbol,
  address,
  contract: 'UsdtLike',
  name,
  decimals,
  transferMethods: ['permit2'],
})

/**
 * Base Sepolia, Arbitrum Sepolia and BSC testnet, with the public testnets' chain ids and, where the
 * testnet has one, the token at its real address and with its real EIP-712 domain: Base Sepolia USDC
 * is "USDC"/"2", Arbitrum Sepolia USDC is "USD Coin"/"2"; on BSC testnet USDT and USDC have 18
 * decimals and no EIP-3009.
 */
const BASE_ARBITRUM_BSC: readonly EvmNetworkConfig[] = [
  {
    network: 'eip155:84532',
    chainId: 84532,
    tokens: [
      usdc('0x036CbD53842c5426634e7929541eC2318f3dCF7e', 'USDC'),
      plain('USDT', DEVNET_USDT_ADDRESS, 'Tether USD', 6),
    ],
  },
  {
    network: 'eip155:421614',
    chainId: 421614,
    tokens: [
      usdc('0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', 'USD Coin'),
      plain('USDT', DEVNET_USDT_ADDRESS, 'Tether USD', 6),
    ],
  },
  {
    network: 'eip155:97',
    chainId: 97,
    tokens: [
      plain('USDT', '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd', 'USDT Token', 18),
      plain('USDC', '0x64544969ed7EBf5f083679233325356EbE738930', 'USDC Token', 18),
    ],
  },
]

/**
 * Ethereum Sepolia, Polygon Amoy and Celo Sepolia (11142220: Celo's developer testnet since Alfajores,
 * 44787, was shut down in 2025), each with Circle's testnet USDC at its real address and EIP-712
 * domain ("USDC"/"2" on all three) and the devnet USDT (none of them has an official testnet USDT).
 */
const ETHEREUM_POLYGON_CELO: readonly EvmNetworkConfig[] = [
  {
    network: 'eip155:11155111',
    chainId: 11155111,
    tokens: [
      usdc('0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', 'USDC'),
      plain('USDT', DEVNET_USDT_ADDRESS, 'Tether USD', 6),
    ],
  },
  {
    network: 'eip155:80002',
    chainId: 80002,
    tokens: [
      usdc('0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', 'USDC'),
      plain('USDT', DEVNET_USDT_ADDRESS, 'Tether USD', 6),
    ],
  },
  {
    network: 'eip155:11142220',
    chainId: 11142220,
    tokens: [
      usdc('0x01C5C0122039549AD1493B8220cABEdD739BC44E', 'USDC'),
      plain('USDT', DEVNET_USDT_ADDRESS, 'Tether USD', 6),
    ],
  },
]

/** The default devnet chains. */
export const DEFAULT_EVM_NETWORKS: readonly EvmNetworkConfig[] = [
  ...BASE_ARBITRUM_BSC,
  ...ETHEREUM_POLYGON_CELO,
]
