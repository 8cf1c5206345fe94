import { sameAddress } from './assets.js'
import type { PaymentRequirements } from './schemas/payment-requirements.js'

/**
 * `extra` fields a scheme may refresh between the 402 and the payment (the SVM blockhash hints):
 * not terms the payer agreed to, so comparisons ignore them.
 */
export const DYNAMIC_EXTRA_FIELDS: ReadonlySet<string> = new Set(['recentBlockhash', 'lastValidBlockHeight'])

const ADDRESS_FIELDS = new Set(['asset', 'payTo'])

/**
 * The first field where the requirement a client says it `accepted` differs from the one the
 * resource server sent (`'network'`, `'amount'`, `'extra.name'`, …), or `undefined` when they
 * match. Every field but `extra` must be equal (addresses case-insensitively on EVM); `accepted.extra`
 * must contain every entry of the requirements' `extra` except {@link DYNAMIC_EXTRA_FIELDS}.
 */
export function findAcceptedMismatch(
  accepted: PaymentRequirements,
  requirements: PaymentRequirements,
): string | undefined {
  const fields = new Set([...Object.keys(requirements), ...Object.keys(accepted)])
  fields.delete('extra')
  for (const field of ['scheme', 'network', ...fields]) {
    const a = accepted[field]
    const b = requirements[field]
    const same =
      ADDRESS_FIELDS.has(field) && typeof a === 'string' && typeof b === 'string'
        ? sameAddress(requirements.network, a, b)
        : isDeepEqual(a, b)
    if (!same) {
      return field
    }
  }
  for (const [key, value] of Object.entries(requirements.extra ?? {})) {
    if (!DYNAMIC_EXTRA_FIELDS.has(key) && !isDeepEqual(accepted.extra?.[key], value)) {
      return `extra.${key}`
    }
  }
  return undefined
}

/** Structural equality of JSON values: objects by own keys (`undefined` members ignored, as JSON drops them), arrays by position. */
export function isDeepEqual(a: unknown, b: unknown): boolean {
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
  const keys = Object.keys(left).filter((key) => left[key] !== undefined)
  return (
    keys.length === Object.keys(right).filter((key) => right[key] !== undefined).length &&
    keys.every((key) => isDeepEqual(left[key], right[key]))
  )
}
