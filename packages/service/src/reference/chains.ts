import type { ChainFamily } from '../rails/types.js'

/** Chain names of the spec's reference data (GET /blockchain/assets, /recipients/chains, ...). */
export const chainNames = [
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
] as const

/** One chain name of {@link chainNames}. */
export type ChainName = (typeof chainNames)[number]

/**
 * A token on a chain: symbol, name, contract address (or SPL mint) and its decimals on that chain;
 * `eip712` is the EIP-712 domain of EIP-3009 tokens (USDC).
 */
export type ChainToken = {
  symbol: string
  name: string
  address: string
  decimals: number
  eip712?: { name: string; version: string }
}

/** How the gas-fee endpoint prices a chain: from an EVM or Solana RPC when one is configured, else static. */
export type FeeModel = 'evm' | 'solana' | 'static'

/**
 * One row of the reference table. `networkId` and `tokens` are the sandbox network (the public
 * testnet the devnet mirrors), `live` the mainnet; `confirmations` are per key environment;
 * `staticFees` are native-coin decimal strings per lower-case asset symbol, used when no RPC is
 * configured; `explorer` holds transaction URL prefixes per environment.
 */
export type ChainInfo = {
  chain: ChainName
  family: ChainFamily
  networkId: string
  live: { networkId: string; tokens: ChainToken[] }
  explorer: { live: string; test: string }
  native: { symbol: string; name: string; decimals: number }
  tokens: ChainToken[]
  confirmations: { live: number; test: number }
  feeModel: FeeModel
  staticFees: Record<string, string>
}

const usdc = (address: string, decimals = 6, eip712?: ChainToken['eip712']): ChainToken => ({
  symbol: 'USDC',
  name: 'USD Coin',
  address,
  decimals,
  ...(eip712 ? { eip712 } : {}),
})
// Circle's FiatToken v2 domain on the mainnets (Base Sepolia's testnet USDC calls itself "USDC").
const circle = { name: 'USD Coin', version: '2' }
// Circle's testnet USDC on Ethereum Sepolia, Polygon Amoy and Celo Sepolia.
const circleTestnet = { name: 'USDC', version: '2' }
const usdt = (address: string, decimals = 6): ChainToken => ({
  symbol: 'USDT',
  name: 'Tether USD',
  address,
  decimals,
})

/** Display names of token symbols (metadata.name of chain asset entries). */
export const tokenNames: Record<string, string> = { USDC: 'USD Coin', USDT: 'Tether USD' }

/** The reference table: every chain of the spec, with or without a local node. */
export const chainTable: readonly ChainInfo[] = [
  {
    chain: 'bitcoin',
    family: 'bitcoin',
    live: { networkId: 'bip122:000000000019d6689c085ae165831e93', tokens: [] },
    explorer: { live: 'https://mempool.space/tx/', test: 'https://mempool.space/testnet/tx/' },
    networkId: 'bip122:000000000933ea01ad0ee984209779ba',
    native: { symbol: 'BTC', name: 'Bitcoin', decimals: 8 },
    tokens: [],
    confirmations: { live: 2, test: 1 },
    feeModel: 'static',
    staticFees: { btc: '0.00002' },
  },
  {
    chain: 'ethereum',
    family: 'evm',
    live: {
      networkId: 'eip155:1',
      tokens: [
        usdc('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 6, circle),
        usdt('0xdAC17F958D2ee523a2206206994597C13D831ec7'),
      ],
    },
    explorer: { live: 'https://etherscan.io/tx/', test: 'https://sepolia.etherscan.io/tx/' },
    networkId: 'eip155:11155111',
    native: { symbol: 'ETH', name: 'Ether', decimals: 18 },
    tokens: [usdc('0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', 6, circleTestnet)],
    confirmations: { live: 12, test: 1 },
    feeModel: 'evm',
    staticFees: { eth: '0.00042', usdc: '0.0013', usdt: '0.0013' },
  },
  {
    chain: 'solana',
    family: 'solana',
    live: {
      networkId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      tokens: [
        usdc('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
        usdt('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
      ],
    },
    explorer: {
      live: 'https://explorer.solana.com/tx/',
      test: 'https://explorer.solana.com/tx/?cluster=devnet#',
    },
    networkId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    native: { symbol: 'SOL', name: 'Solana', decimals: 9 },
    // USDT: the devnet's own mint (Tether has none on Solana devnet; @tollgate/devnet DEVNET_USDT_MINT).
    tokens: [
      usdc('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'),
      usdt('KoXPj3LF2ZXvPz6LFofRUjErJ4EfgEbpRZBRc7aAiMm'),
    ],
    confirmations: { live: 32, test: 1 },
    feeModel: 'solana',
    staticFees: { sol: '0.000005', usdc: '0.002044280', usdt: '0.002044280' },
  },
  {
    chain: 'bsc',
    family: 'evm',
    live: {
      networkId: 'eip155:56',
      tokens: [
        usdc('0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 18),
        usdt('0x55d398326f99059fF775485246999027B3197955', 18),
      ],
    },
    explorer: { live: 'https://bscscan.com/tx/', test: 'https://testnet.bscscan.com/tx/' },
    networkId: 'eip155:97',
    native: { symbol: 'BNB', name: 'BNB', decimals: 18 },
    tokens: [
      usdc('0x64544969ed7EBf5f083679233325356EbE738930', 18),
      usdt('0x337610d27c682E347C9cD60BD4b3b107C9d34dDd', 18),
    ],
    confirmations: { live: 15, test: 1 },
    feeModel: 'evm',
    staticFees: { bnb: '0.000021', usdc: '0.000065', usdt: '0.000065' },
  },
  {
    chain: 'tron',
    family: 'tron',
    live: { networkId: 'tron:0x2b6653dc', tokens: [usdt('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')] },
    explorer: {
      live: 'https://tronscan.org/#/transaction/',
      test: 'https://nile.tronscan.org/#/transaction/',
    },
    networkId: 'tron:0xcd8690dc',
    native: { symbol: 'TRX', name: 'Tron', decimals: 6 },
    tokens: [usdt('TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf')],
    confirmations: { live: 19, test: 1 },
    feeModel: 'static',
    staticFees: { trx: '1.1', usdt: '13.3959' },
  },
  {
    chain: 'polygon',
    family: 'evm',
    live: {
      networkId: 'eip155:137',
      tokens: [
        usdc('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 6, circle),
        usdt('0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
      ],
    },
    explorer: { live: 'https://polygonscan.com/tx/', test: 'https://amoy.polygonscan.com/tx/' },
    networkId: 'eip155:80002',
    native: { symbol: 'POL', name: 'Polygon Ecosystem Token', decimals: 18 },
    tokens: [usdc('0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', 6, circleTestnet)],
    confirmations: { live: 128, test: 1 },
    feeModel: 'evm',
    staticFees: { pol: '0.00063', usdc: '0.00195' },
  },
  {
    chain: 'base',
    family: 'evm',
    live: {
      networkId: 'eip155:8453',
      tokens: [usdc('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 6, circle)],
    },
    explorer: { live: 'https://basescan.org/tx/', test: 'https://sepolia.basescan.org/tx/' },
    networkId: 'eip155:84532',
    native: { symbol: 'ETH', name: 'Ether', decimals: 18 },
    tokens: [usdc('0x036CbD53842c5426634e7929541eC2318f3dCF7e')],
    confirmations: { live: 12, test: 1 },
    feeModel: 'evm',
    staticFees: { eth: '0.0000021', usdc: '0.0000065', usdt: '0.0000065' },
  },
  {
    chain: 'arbitrum',
    family: 'evm',
    live: {
      networkId: 'eip155:42161',
      tokens: [
        usdc('0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 6, circle),
        usdt('0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
      ],
    },
    explorer: { live: 'https://arbiscan.io/tx/', test: 'https://sepolia.arbiscan.io/tx/' },
    networkId: 'eip155:421614',
    native: { symbol: 'ETH', name: 'Ether', decimals: 18 },
    tokens: [usdc('0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d')],
    confirmations: { live: 12, test: 1 },
    feeModel: 'evm',
    staticFees: { eth: '0.0000021', usdc: '0.0000065', usdt: '0.0000065' },
  },
  {
    chain: 'celo',
    family: 'evm',
    live: {
      networkId: 'eip155:42220',
      tokens: [
        usdc('0xcebA9300f2b948710d2653dD7B07f33A8B32118C'),
        usdt('0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e'),
      ],
    },
    // Celo Sepolia: Celo's developer testnet since Alfajores (44787) was shut down in 2025.
    explorer: { live: 'https://celoscan.io/tx/', test: 'https://celo-sepolia.blockscout.com/tx/' },
    networkId: 'eip155:11142220',
    native: { symbol: 'CELO', name: 'Celo', decimals: 18 },
    tokens: [usdc('0x01C5C0122039549AD1493B8220cABEdD739BC44E', 6, circleTestnet)],
    confirmations: { live: 3, test: 1 },
    feeModel: 'evm',
    staticFees: { celo: '0.000525', usdc: '0.001625' },
  },
  {
    chain: 'dogecoin',
    family: 'dogecoin',
    live: { networkId: 'bip122:1a91e3dace36e2be3bf030a65679fe82', tokens: [] },
    explorer: {
      live: 'https://blockchair.com/dogecoin/transaction/',
      test: 'https://blockexplorer.one/dogecoin/testnet/tx/',
    },
    networkId: 'bip122:bb0a78264637406b6360aad926284d54',
    native: { symbol: 'DOGE', name: 'Dogecoin', decimals: 8 },
    tokens: [],
    confirmations: { live: 6, test: 1 },
    feeModel: 'static',
    staticFees: { doge: '0.01' },
  },
]
