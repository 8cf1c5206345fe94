/**
 * Local chains for tests, examples and the sandbox: anvil (EVM) with the contract fixtures, and a
 * LiteSVM-backed Solana JSON-RPC server.
 *
 * @example
 * const devnet = await startDevnet()
 * console.log(devnet.networks['eip155:84532'].rpcUrl)
 * await devnet.stop()
 *
 * @module
 */
export type { StartDevnetOptions } from './start-devnet.js'
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
