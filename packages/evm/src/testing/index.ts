/**
 * Test helpers for the EVM schemes: a fake chain and relayer (no I/O), and a harness on the devnet.
 *
 * @module
 */
export type { EvmHarness } from './devnet-harness.js'
export { startEvmHarness } from './devnet-harness.js'
export type { FakeChainState, FakeLog, FakeRelayerBehavior, FakeTransaction } from './fake-chain.js'
export {
  assets,
  buildPayment,
  buildRequirements,
  createFakeChain,
  createFakeRelayer,
  MERCHANT,
  mineFakeTransaction,
  NETWORK,
  NOW_MS,
  USDC,
  USDT,
} from './fake-chain.js'
