/**
 * Local chains for tests, examples and the sandbox: anvil (EVM) with the contract fixtures, and a
 * LiteSVM-backed Solana JSON-RPC server.
 *
 * @example
 * const devnet = await startDevnet()
 * const base = devnet.networks['eip155:84532']
 * const client = createPublicClient({ chain: toViemChain(base), transport: http(), pollingInterval: 50 })
 * await devnet.stop()
 *
 * @module
 */

export { DEVNET_FLAGS_HELP, type DevnetFlags, parseDevnetFlags } from './devnet-flags.js'
export {
  erc1271WalletAbi,
  multicall3Abi,
  permit2Abi,
  usdcLikeAbi,
  usdtLikeAbi,
  x402ExactPermit2ProxyAbi,
} from './evm/abis.js'
export {
  CREATE2_DEPLOYER_ADDRESS,
  DEVNET_USDT_ADDRESS,
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './evm/addresses.js'
export { fixtureBytecodes } from './evm/bytecodes.js'
export { ANVIL_MNEMONIC, type EvmAccount } from './evm/dev-accounts.js'
export type {
  DeployErc4337StackParameters,
  DeployErc4337StackReturnType,
} from './evm/erc4337/deploy-erc4337-stack.js'
export { deployErc4337Stack } from './evm/erc4337/deploy-erc4337-stack.js'
export {
  ENTRY_POINT_V07_ADDRESS,
  ERC4337_CONTRACTS,
  type Erc4337Contract,
  SAFE_ADDRESSES,
  SAFE_SINGLETON_FACTORY_ADDRESS,
} from './evm/erc4337/erc4337-contracts.js'
export { DEFAULT_EVM_NETWORKS, type EvmNetworkConfig, type EvmTokenConfig } from './evm/evm-networks.js'
export {
  DEFAULT_FORK_PLACERS,
  type EvmPlacer,
  type EvmPlacerContext,
  hasCode,
  type PlacedContract,
  sendForkTransaction,
} from './evm/fork-placers.js'
export type { JsonRpc, RpcCall } from './evm/json-rpc.js'
export type { EvmDevnet, EvmMining, StartEvmDevnetOptions } from './evm/start-evm-devnet.js'
export { startEvmDevnet } from './evm/start-evm-devnet.js'
export type { EvmFork } from './evm/start-fork-chain.js'
export { toViemChain } from './evm/to-viem-chain.js'
export { DEVNET_USDC_MINT, DEVNET_USDT_MINT } from './solana/solana-fixtures.js'
export type { SolanaDevnet, StartSolanaDevnetOptions } from './solana/start-solana-devnet.js'
export { SOLANA_DEVNET_NETWORK, startSolanaDevnet } from './solana/start-solana-devnet.js'
export type { LocalDevnet, StartDevnetOptions } from './start-devnet.js'
export { startDevnet } from './start-devnet.js'
export type {
  Devnet,
  DevnetAsset,
  DevnetManifest,
  DevnetNetwork,
  DevnetWallet,
  FundParameters,
  TransferMethod,
} from './types.js'
