import { encodeBase64Json, type PaymentRequired, type SettleResponse, X402_HEADERS } from '@tollgate/core'
import { toPaymentRequiredV1 } from './v1-body.js'

const JSON_TYPE = 'application/json'

/**
 * A 402 (or 412) offering `paymentRequired`: v2 in the `PAYMENT-REQUIRED` header, and the v1 JSON
 * body for legacy clients when any requirement can be expressed in v1 (v2 clients read the header
 * first, so one answer serves both); `{}` otherwise. `html` replaces the body for browsers.
 */
export function createPaymentRequiredResponse(
  paymentRequired: PaymentRequired,
  options: { status?: number; html?: string } = {},
): Response {
  const headers = new Headers({
    [X402_HEADERS.paymentRequired]: encodeBase64Json(paymentRequired),
    'Cache-Control': 'no-store',
  })
  if (options.html !== undefined) {
    headers.set('Content-Type', 'text/html; charset=utf-8')
    return new Response(options.html, { status: options.status ?? 402, headers })
  }
  headers.set('Content-Type', JSON_TYPE)
  const body = toPaymentRequiredV1(paymentRequired) ?? {}
  return new Response(JSON.stringify(body), { status: options.status ?? 402, headers })
}

/**
 * The 402 after a failed settlement: the failed settle response in the receipt header (no new
 * `PAYMENT-REQUIRED`, as in x402 v2) and body `{}`; v1 clients get `X-PAYMENT-RESPONSE` and the v1
 * body with the error, as v1 servers answered.
 */
export function createSettleFailedResponse(
  settle: SettleResponse,
  options: { x402Version: 1 | 2; paymentRequired: PaymentRequired },
): Response {
  const headers = new Headers({ 'Cache-Control': 'no-store', 'Content-Type': JSON_TYPE })
  headers.set(receiptHeader(options.x402Version), encodeBase64Json(settle))
  const body =
    options.x402Version === 1
      ? (toPaymentRequiredV1({
          ...options.paymentRequired,
          error: settle.errorReason ?? 'settlement_failed',
        }) ?? {})
      : {}
  return new Response(JSON.stringify(body), { status: 402, headers })
}

/** 502 `{ error }`: the facilitator was unreachable, timed out or answered garbage; nothing was charged. */
export function createFacilitatorErrorResponse(message: string): Response {
  return new Response(JSON.stringify({ error: message }), {
    status: 502,
    headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' },
  })
}

/** The handler's response with the settlement receipt added and caching restricted to the payer. */
export function withReceipt(response: Response, settle: SettleResponse, x402Version: 1 | 2): Response {
  const headers = new Headers(response.headers)
  headers.set(receiptHeader(x402Version), encodeBase64Json(settle))
  headers.set('Cache-Control', toPrivateCacheControl(headers.get('Cache-Control')))
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/** Whether a gate's answer charged the payer: a settlement receipt on anything but a 402. */
export function isCharged(response: Response): boolean {
  return (
    response.status !== 402 &&
    (response.headers.has(X402_HEADERS.paymentResponse) ||
      response.headers.has(X402_HEADERS.xPaymentResponse))
  )
}

function receiptHeader(x402Version: 1 | 2): string {
  return x402Version === 1 ? X402_HEADERS.xPaymentResponse : X402_HEADERS.paymentResponse
}

// A paid response is for one payer: shared caches must not serve it to others.
function toPrivateCacheControl(value: string | null): string {
  if (!value) {
    return 'private'
  }
  if (/\b(private|no-store)\b/i.test(value)) {
    return value
  }
  return /\bpublic\b/i.test(value) ? value.replace(/\bpublic\b/i, 'private') : `private, ${value}`
}
