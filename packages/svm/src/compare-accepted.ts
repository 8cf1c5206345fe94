import type { PaymentRequirements } from '@tollgate/core'
import { REASONS } from '@tollgate/core'
import type { PaymentRefusal } from './check-payment-instructions.js'

/** `extra` fields that are hints, not terms: the client may have used them or not. */
const DYNAMIC_EXTRA_FIELDS = new Set(['recentBlockhash', 'lastValidBlockHeight'])

/**
 * Compares the requirement the client says it accepted with the one the resource server sent,
 * field by field (Tollgate is stricter than the reference here, X402.md §9). A network mismatch
 * gets the SVM reason; any other difference is `invalid_payment_requirements`.
 */
export function compareAccepted(
  accepted: PaymentRequirements,
  requirements: PaymentRequirements,
): PaymentRefusal | undefined {
  if (accepted.network !== requirements.network) {
    return { reason: REASONS.svmNetworkMismatch, message: 'accepted.network differs from the requirements' }
  }
  for (const field of ['scheme', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'] as const) {
    if (accepted[field] !== requirements[field]) {
      return {
        reason: REASONS.invalidPaymentRequirements,
        message: `accepted.${field} differs from the requirements`,
      }
    }
  }
  const keys = new Set([...Object.keys(accepted.extra ?? {}), ...Object.keys(requirements.extra ?? {})])
  for (const key of keys) {
    if (!DYNAMIC_EXTRA_FIELDS.has(key) && !isDeepEqual(accepted.extra?.[key], requirements.extra?.[key])) {
      return {
        reason: REASONS.invalidPaymentRequirements,
        message: `accepted.extra.${key} differs from the requirements`,
      }
    }
  }
  return undefined
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return false
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && isDeepEqual(left[key], right[key]))
  )
}
