import { sandboxAccountName } from '../rails/fiat/resolve-sandbox-bank-account.js'

/**
 * NGN accounts whose sandbox holder is the same person, one per steered payout outcome (the last
 * four digits, docs/rails-fiat.md): `success`, `failed` by the provider's callback, `stuck` until a
 * callback is fired, `timeout` (the bank takes it, the call times out). The sandbox merchant's
 * business name is their holder, so it can save them as recipients (docs/payouts.md "Sandbox").
 */
export const sandboxPayoutAccounts = {
  success: '0123456789',
  failed: '0101250000',
  stuck: '0102101111',
  timeout: '0103882222',
} as const

/** The holder name of {@link sandboxPayoutAccounts} at the sandbox bank. */
export const sandboxPayoutHolder = sandboxAccountName(sandboxPayoutAccounts.success)
