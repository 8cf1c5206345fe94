import { createHash } from 'node:crypto'
import { type PaymentPayload, type PaymentRequirements, toCanonicalJson } from '@tollgate/core'

/**
 * A SHA-256 hex digest of a payment's requirements and signed payload, independent of key order
 * (Postgres `jsonb` does not keep it). A repeated settle of one settlement key must carry the same
 * fingerprint: otherwise a payment already settled for one merchant could be replayed to another
 * and answered with the first one's stored success. Throws `invalid_request` for values nested
 * deeper than 64 levels (the facilitator refuses such bodies before they get here).
 */
export function getSettlementFingerprint(payment: PaymentPayload, requirements: PaymentRequirements): string {
  return createHash('sha256')
    .update(toCanonicalJson({ requirements, payload: payment.payload }))
    .digest('hex')
}
