import { createHash } from 'node:crypto'
import type { PaymentPayload } from '@tollgate/core'
import { decodePaymentTransaction } from './decode-payment-transaction.js'

/**
 * The key of one Solana payment, `solana:<base64 SHA-256 of the transaction message>`: the message
 * (blockhash, accounts, memo nonce) identifies the payment; signatures do not. `undefined` when the
 * payload carries no decodable transaction.
 */
export function getSolanaPaymentKey(payment: PaymentPayload): string | undefined {
  const transaction = payment.payload.transaction
  const decoded = typeof transaction === 'string' ? decodePaymentTransaction(transaction) : undefined
  if (!decoded) {
    return undefined
  }
  return `solana:${createHash('sha256').update(decoded.messageBytes).digest('base64')}`
}
