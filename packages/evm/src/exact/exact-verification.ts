import type { VerifyResponse } from '@tollgate/core'

/** A verify answer of an exact-EVM scheme, plus the verified payment (`V`) when valid. */
export type ExactVerification<V> = { response: VerifyResponse; verified?: V }

/** An invalid answer with its reason, and the payer and a message when known. */
export function invalidVerification(
  reason: string,
  payer?: string,
  message?: string,
): ExactVerification<never> {
  return {
    response: {
      isValid: false,
      invalidReason: reason,
      ...(message ? { invalidMessage: message } : {}),
      ...(payer ? { payer } : {}),
    },
  }
}
