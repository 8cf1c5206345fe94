import { createHash } from 'node:crypto'
import {
  getSchemeName,
  type PaymentPayload,
  REASONS,
  type SchemeServer,
  toCanonicalJson,
} from '@tollgate/core'
import type { PaymentClaimStore } from './payment-claims.js'
import { createPaymentRequiredResponse, isCharged } from './respond.js'
import type { Paid } from './types.js'

// A claim outlives the payment's validity window (after it, verify refuses the payment anyway),
// with a margin for clock skew; never less than a minute, never more than a day.
const MARGIN_MS = 60_000
const MAX_CLAIM_MS = 24 * 60 * 60 * 1000

/** What the gate's claims need: the store, the schemes that name payments, and a clock. */
export type ClaimSettings = {
  store: PaymentClaimStore
  schemes: readonly SchemeServer[]
  now: () => number
}

/**
 * Runs `run` (verify, handler, settle) only for the request that claimed the payment: a copy sent
 * while it is in flight, or after it was charged, gets a 402 `duplicate_settlement` and never
 * reaches the handler. A request that charged nothing releases its claim, so the payer may send
 * the same payment again (a retry after `settlement_pending` gets the one outcome).
 */
export async function runClaimed(
  paid: Paid,
  settings: ClaimSettings,
  run: () => Promise<Response>,
): Promise<Response> {
  const key = getPaymentKey(paid, settings.schemes)
  const now = settings.now()
  const validMs = Math.max(0, paid.requirements.maxTimeoutSeconds) * 1000
  const expiresAt = now + Math.min(validMs + MARGIN_MS, MAX_CLAIM_MS)
  if (!(await settings.store.claim(key, expiresAt, now))) {
    return createPaymentRequiredResponse(paid.offer(REASONS.duplicateSettlement))
  }
  let response: Response
  try {
    response = await run()
  } catch (error) {
    await settings.store.release(key)
    throw error
  }
  if (!isCharged(response)) {
    await settings.store.release(key)
  }
  return response
}

/**
 * The payment's key: its scheme's (the signer and nonce on EVM, the message on Solana), else a
 * digest of the network and signed payload. Prefixed so a store can be shared with other data.
 */
function getPaymentKey(paid: Paid, schemes: readonly SchemeServer[]): string {
  const { requirements } = paid
  const name = getSchemeName(requirements)
  const scheme = name ? schemes.find((s) => s.name === name) : undefined
  // Keys read only the signed `payload`, which v1 and v2 carry alike.
  const key = scheme?.getPaymentKey?.(paid.payment as PaymentPayload, requirements)
  if (key) {
    return `x402:${key}`
  }
  const digest = createHash('sha256')
    .update(toCanonicalJson([requirements.network, paid.payment.payload]))
    .digest('base64url')
  return `x402:payload:${digest}`
}
