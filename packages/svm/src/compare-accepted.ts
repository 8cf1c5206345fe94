import { findAcceptedMismatch, type PaymentRequirements, REASONS } from '@tollgate/core'
import type { PaymentRefusal } from './check-payment-instructions.js'

/**
 * Compares the requirement the client says it accepted with the one the resource server sent,
 * field by field (Tollgate is stricter than the reference here, docs/x402.md, 'Where Tollgate is stricter'; blockhash hints in
 * `extra` are ignored). A network mismatch gets the SVM reason; any other difference is
 * `invalid_payment_requirements`.
 */
export function compareAccepted(
  accepted: PaymentRequirements,
  requirements: PaymentRequirements,
): PaymentRefusal | undefined {
  const field = findAcceptedMismatch(accepted, requirements)
  if (field === undefined) {
    return undefined
  }
  return {
    reason: field === 'network' ? REASONS.svmNetworkMismatch : REASONS.invalidPaymentRequirements,
    message: `accepted.${field} differs from the requirements`,
  }
}
