/**
 * Test doubles for code that pays with the agent: fake scheme clients, a fake paid server and
 * ready-made offers.
 *
 * @module
 */
export type { FakeClient } from './fakes.js'
export {
  createFakeClient,
  createFakeServer,
  createOffer,
  EVM_PAYER,
  MERCHANT,
  readPaymentHeader,
  SVM_PAYER,
  usdcBaseSepolia,
  usdcSolanaDevnet,
  usdtBscTestnet,
} from './fakes.js'
