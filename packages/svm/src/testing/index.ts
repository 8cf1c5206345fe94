/**
 * Test helpers for the Solana scheme: builders of payment transactions, honest and hostile.
 *
 * @module
 */
export type { PaymentFixture } from './payment-fixtures.js'
export {
  buildPayment,
  buildPaymentInstructions,
  buildPaymentTransaction,
  buildRequirements,
  FAKE_BLOCKHASH,
} from './payment-fixtures.js'
