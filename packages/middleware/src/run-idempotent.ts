import {
  createPaymentIdentifierCache,
  declarePaymentIdentifier,
  getPaymentIdFingerprint,
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierCache,
  readPaymentId,
} from './payment-identifier.js'
import { isCharged } from './respond.js'
import type { Paid, PaymentMiddlewareOptions } from './types.js'

/** The payment-identifier settings of a gate. */
export type IdentifierSettings = {
  required: boolean
  cache: PaymentIdentifierCache
  extensions: Record<string, unknown>
}

/** Resolves the `paymentIdentifier` option; `undefined` when the extension is off. */
export function toIdentifierSettings(
  option: PaymentMiddlewareOptions['paymentIdentifier'],
): IdentifierSettings | undefined {
  if (!option) {
    return undefined
  }
  const settings = option === true ? {} : option
  const required = settings.required ?? false
  return {
    required,
    cache: createPaymentIdentifierCache(settings.ttlMs !== undefined ? { ttlMs: settings.ttlMs } : {}),
    extensions: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifier(required) },
  }
}

// payment-identifier (docs/x402.md, 'Extensions we use'): same id + same payment → the first paid answer again; same id +
// another payment → 409; a required id missing → 400. Only charged answers are remembered.
export async function runIdempotent(
  paid: Paid,
  settings: IdentifierSettings,
  run: () => Promise<Response>,
): Promise<Response> {
  const id = readPaymentId(paid.payment)
  if (id === null || (id === undefined && settings.required)) {
    return jsonError(400, id === null ? 'invalid payment-identifier id' : 'payment-identifier id required')
  }
  if (id === undefined) {
    return run()
  }
  const state = settings.cache.begin(id, getPaymentIdFingerprint(paid.payment))
  if (state.kind === 'replay') {
    return state.response
  }
  if (state.kind !== 'new') {
    return jsonError(
      409,
      state.kind === 'conflict'
        ? 'payment-identifier id reused with another payment'
        : 'payment-identifier id in use',
    )
  }
  let response: Response
  try {
    response = await run()
  } catch (error) {
    settings.cache.abandon(id)
    throw error
  }
  if (!isCharged(response)) {
    settings.cache.abandon(id)
    return response
  }
  return settings.cache.complete(id, response)
}

function jsonError(status: number, error: string): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  })
}
