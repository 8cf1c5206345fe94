import './errors.js'
import {
  AppError,
  decodePaymentRequiredHeader,
  type PaymentRequired,
  type PaymentRequirements,
  type PaymentRequirementsV1,
  parsePaymentRequiredV1Body,
  toPaymentRequirements,
  X402_HEADERS,
} from '@tollgate/core'

/** A 402's offer, in v2 form whatever the server spoke. */
export type Offer =
  | { x402Version: 2; paymentRequired: PaymentRequired; accepts: PaymentRequirements[] }
  | {
      x402Version: 1
      accepts: PaymentRequirements[]
      /** The v1 requirement each entry of `accepts` came from (same index). */
      v1: PaymentRequirementsV1[]
    }

/**
 * Reads a 402: the v2 `PAYMENT-REQUIRED` header first, else a v1 JSON body (v1 requirements on
 * networks Tollgate cannot name are dropped). Throws `payment_required_invalid` when neither parses.
 * Consumes the response body.
 */
export async function parsePaymentRequired(response: Response, url: string): Promise<Offer> {
  const header = response.headers.get(X402_HEADERS.paymentRequired)
  if (header) {
    try {
      const paymentRequired = decodePaymentRequiredHeader(header)
      await response.body?.cancel()
      return { x402Version: 2, paymentRequired, accepts: paymentRequired.accepts }
    } catch {
      // fall back to a v1 body
    }
  }
  const body: unknown = await response.json().catch(() => undefined)
  const v1 = parsePaymentRequiredV1Body(body)
  if (!v1) {
    throw new AppError('payment_required_invalid', {
      context: { url },
      message: `${url} answered 402 without a readable x402 offer`,
    })
  }
  const accepts: PaymentRequirements[] = []
  const sources: PaymentRequirementsV1[] = []
  for (const requirement of v1.accepts) {
    try {
      accepts.push(toPaymentRequirements(requirement))
      sources.push(requirement)
    } catch {
      // a network this agent cannot name: not payable
    }
  }
  return { x402Version: 1, accepts, v1: sources }
}
