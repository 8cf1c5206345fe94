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

/** A token on a chain: symbol, name, contract address (or SPL mint) and its decimals on that chain. */
export type ChainToken = { symbol: string; name: string; address: string; decimals: number }

/** How the gas-fee endpoint prices a chain: from an EVM or Solana RPC when one is configured, else static. */
export type FeeModel = 'evm' | 'solana' | 'static'

/**
 * One row of the reference table. `networkId` is the CAIP-2 id of the sandbox network (the public
 * testnet the devnet mirrors); `confirmations` are per key environment; `staticFees` are native-coin
 * decimal strings per lower-case asset symbol, used when no RPC is configured.
 */
export type ChainInfo = {
  chain: ChainName
  networkId: string
  native: { symbol: string; name: string; decimals: number }
  tokens: ChainToken[]
  confirmations: { live: number; test: number }
  feeModel: FeeModel
  staticFees: Record<string, string>
}

const usdc = (address: string, decimals = 6): ChainToken => ({
  symbol: 'USDC',
  name: 'USD Coin',
  address,
  decimals,
})
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
    networkId: 'bip122:000000000933ea01ad0ee984209779ba',
    native: { symbol: 'BTC', name: 'Bitcoin', decimals: 8 },
    tokens: [],
    confirmations: { live: 2, test: 1 },
    feeModel: 'static',
    staticFees: { btc: '0.00002' },
  },
  {
    chain: 'ethereum',
    networkId: 'eip155:11155111',
    native: { symbol: 'ETH', name: 'Ether', decimals: 18 },
    tokens: [usdc('0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238')],
    confirmations: { live: 12, test: 1 },
    feeModel: 'evm',
    staticFees: { eth: '0.00042', usdc: '0.0013', usdt: '0.0013' },
  },
  {
    chain: 'solana',
    networkId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    native: { symbol: 'SOL', name: 'Solana', decimals: 9 },
    tokens: [usdc('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')],
    confirmations: { live: 32, test: 1 },
    feeModel: 'solana',
    staticFees: { sol: '0.000005', usdc: '0.002044280', usdt: '0.002044280' },
  },
  {
    chain: 'bsc',
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
    networkId: 'tron:0xcd8690dc',
    native: { symbol: 'TRX', name: 'Tron', decimals: 6 },
    tokens: [usdt('TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf')],
    confirmations: { live: 19, test: 1 },
    feeModel: 'static',
    staticFees: { trx: '1.1', usdt: '13.3959' },
  },
  {
    chain: 'polygon',
    networkId: 'eip155:80002',
    native: { symbol: 'POL', name: 'Polygon Ecosystem Token', decimals: 18 },
    tokens: [usdc('0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582')],
    confirmations: { live: 128, test: 1 },
    feeModel: 'evm',
    staticFees: { pol: '0.00063', usdc: '0.00195' },
  },
  {
    chain: 'base',
    networkId: 'eip155:84532',
    native: { symbol: 'ETH', name: 'Ether', decimals: 18 },
    tokens: [usdc('0x036CbD53842c5426634e7929541eC2318f3dCF7e')],
    confirmations: { live: 12, test: 1 },
    feeModel: 'evm',
    staticFees: { eth: '0.0000021', usdc: '0.0000065', usdt: '0.0000065' },
  },
  {
    chain: 'arbitrum',
    networkId: 'eip155:421614',
    native: { symbol: 'ETH', name: 'Ether', decimals: 18 },
    tokens: [usdc('0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d')],
    confirmations: { live: 12, test: 1 },
    feeModel: 'evm',
    staticFees: { eth: '0.0000021', usdc: '0.0000065', usdt: '0.0000065' },
  },
  {
    chain: 'celo',
    networkId: 'eip155:44787',
    native: { symbol: 'CELO', name: 'Celo', decimals: 18 },
    tokens: [usdc('0x2F25deB3848C207fc8E0c34035B3Ba7fC157602B')],
    confirmations: { live: 3, test: 1 },
    feeModel: 'evm',
    staticFees: { celo: '0.000525', usdc: '0.001625' },
  },
  {
    chain: 'dogecoin',
    networkId: 'bip122:bb0a78264637406b6360aad926284d54',
    native: { symbol: 'DOGE', name: 'Dogecoin', decimals: 8 },
    tokens: [],
    confirmations: { live: 6, test: 1 },
    feeModel: 'static',
    staticFees: { doge: '0.01' },
  },
]
