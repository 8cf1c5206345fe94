/**
 * Test helpers for code that drives a facilitator: a fake scheme whose chain is a counter, and a
 * facilitator with well-formed requests for hostile-input tests.
 *
 * @module
 */
export type { FakeConfirmation, FakeScheme, FakeSchemeOptions } from './create-fake-scheme.js'
export { buildFakeRequest, createFakeScheme } from './create-fake-scheme.js'
export {
  createHostileInputFacilitator,
  eip3009Payload,
  HOSTILE_INPUT_BASES,
  HOSTILE_INPUT_MERCHANT,
  HOSTILE_INPUT_SOLANA_PAYEE,
  hostileInputAssets,
  permit2Payload,
  solanaPayload,
} from './hostile-input-fixtures.js'
export type { ServedForTests } from './serve-for-tests.js'
export { serveForTests } from './serve-for-tests.js'
