import { createHash } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements } from '@tollgate/core'

/**
 * A SHA-256 hex digest of a payment's requirements and signed payload, independent of key order
 * (Postgres `jsonb` does not keep it). A repeated settle of one settlement key must carry the same
 * fingerprint: otherwise a payment already settled for one merchant could be replayed to another
 * and answered with the first one's stored success.
 */
export function getSettlementFingerprint(payment: PaymentPayload, requirements: PaymentRequirements): string {
  return createHash('sha256')
    .update(toCanonicalJson({ requirements, payload: payment.payload }))
    .digest('hex')
}

function toCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => toCanonicalJson(item ?? null)).join(',')}]`
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${toCanonicalJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
