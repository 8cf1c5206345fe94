import { randomUUID } from 'node:crypto'
import { encodeBase64Json, type SchemePayload, X402_HEADERS } from '@tollgate/core'
import type { Offer } from './parse-payment-required.js'

const PAYMENT_IDENTIFIER = 'payment-identifier'

/**
 * The header that carries a signed payment for option `index` of `offer`: v2 `PAYMENT-SIGNATURE`
 * echoing the chosen requirement verbatim in `accepted` (with the server's extensions, plus a
 * payment id when the server declares `payment-identifier`), or v1 `X-PAYMENT` with the v1 network name.
 */
export function createPaymentHeader(
  offer: Offer,
  index: number,
  payload: SchemePayload,
): { name: string; value: string } {
  if (offer.x402Version === 1) {
    const source = offer.v1[index]
    return {
      name: X402_HEADERS.xPayment,
      value: encodeBase64Json({ x402Version: 1, scheme: source?.scheme, network: source?.network, payload }),
    }
  }
  const { paymentRequired } = offer
  const extensions = withPaymentIdentifier(paymentRequired.extensions)
  return {
    name: X402_HEADERS.paymentSignature,
    value: encodeBase64Json({
      x402Version: 2,
      resource: paymentRequired.resource,
      accepted: offer.accepts[index],
      payload,
      ...(extensions ? { extensions } : {}),
    }),
  }
}

// Echo the server's extensions; for payment-identifier add our idempotency id (16-128 chars of [A-Za-z0-9_-]).
function withPaymentIdentifier(
  extensions: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const declared = extensions?.[PAYMENT_IDENTIFIER]
  if (!extensions || typeof declared !== 'object' || declared === null) {
    return extensions
  }
  const info = 'info' in declared && typeof declared.info === 'object' ? declared.info : {}
  return {
    ...extensions,
    [PAYMENT_IDENTIFIER]: { ...declared, info: { ...info, id: `pay_${randomUUID().replaceAll('-', '')}` } },
  }
}
