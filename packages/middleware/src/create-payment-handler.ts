import { createPaymentGate } from './create-payment-gate.js'
import { releaseUnreadBody } from './release-unread-body.js'
import type { PaymentInfo, PaymentMiddlewareOptions } from './types.js'

/** A Fetch-API handler that may read the payment of a paid request from its second argument. */
export type PaidFetchHandler = (
  request: Request,
  payment: PaymentInfo | undefined,
) => Promise<Response> | Response

const payments = new WeakMap<Request, PaymentInfo>()

/** The payment behind `request` inside a handler wrapped by {@link createPaymentHandler}. */
export function getPayment(request: Request): PaymentInfo | undefined {
  return payments.get(request)
}

/**
 * Wraps any Fetch-API handler (`(Request) => Promise<Response>`: Bun, Deno, workers, hono's
 * `app.fetch`) with the payment flow of {@link paymentRequired}. A handler that throws is never
 * charged for (in the `authorization` flow the error propagates unchanged).
 *
 * @example
 * const paid = createPaymentHandler({ facilitator, schemes, payTo, routes })
 * export const fetch = paid(async (request, payment) => Response.json({ paidBy: payment?.payer }))
 */
export function createPaymentHandler(
  options: PaymentMiddlewareOptions,
): (handler: PaidFetchHandler) => (request: Request) => Promise<Response> {
  const gate = createPaymentGate(options)
  return (handler) => async (request) => {
    const path = new URL(request.url).pathname
    let handlerRan = false
    const response = await gate.handle(
      { method: request.method, url: request.url, path, headers: request.headers },
      async (payment) => {
        handlerRan = true
        if (payment) {
          payments.set(request, payment)
        }
        return handler(request, payment)
      },
    )
    if (!handlerRan) {
      releaseUnreadBody(request, response)
    }
    return response
  }
}
