/**
 * Test doubles for code that uses the middleware: fake scheme servers, a fake facilitator and
 * helpers to read a 402 and build a payment header.
 *
 * @module
 */
export type { FakeFacilitator } from './fakes.js'
export {
  assets,
  createFakeFacilitator,
  createFakeSchemeServer,
  createPaymentHeader,
  FEE_PAYER,
  fakeSchemes,
  MERCHANT_EVM,
  MERCHANT_SVM,
  PAYER,
  readPaymentRequired,
} from './fakes.js'
