import { createHash } from 'node:crypto'
import { AppError, MAX_JSON_DEPTH, type PaymentPayload, type PaymentRequirements } from '@tollgate/core'

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

// Recursive, so bounded: a library caller could pass a value nested deep enough to exhaust the stack.
function toCanonicalJson(value: unknown, depth = 0): string {
  if (typeof value !== 'object' || value === null) {
    return JSON.stringify(value) ?? 'null'
  }
  if (depth >= MAX_JSON_DEPTH) {
    throw new AppError('invalid_request', {
      context: { issues: { payload: `nests deeper than ${MAX_JSON_DEPTH} levels` } },
      message: `the payment nests deeper than ${MAX_JSON_DEPTH} levels`,
    })
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => toCanonicalJson(item ?? null, depth + 1)).join(',')}]`
  }
  const entries = Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${toCanonicalJson(item, depth + 1)}`).join(',')}}`
}
