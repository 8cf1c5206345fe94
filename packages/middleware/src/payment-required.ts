import type { MiddlewareHandler } from 'hono'
import { createPaymentGate } from './create-payment-gate.js'
import { releaseUnreadBody } from './release-unread-body.js'
import type { PaymentInfo, PaymentMiddlewareOptions } from './types.js'

/** hono context variables set by {@link paymentRequired}: `c.get('payment')` in a paid handler. */
export type PaymentVariables = { payment: PaymentInfo }

/**
 * hono middleware that charges for the configured routes: answers 402 with the requirements,
 * verifies a payment through the facilitator, runs the handler with `c.get('payment')`, and
 * settles only when the handler answered < 400 (or before it, in the `upfront` flow).
 *
 * @example
 * app.use(paymentRequired({
 *   facilitator: 'http://127.0.0.1:4020/facilitator',
 *   schemes: [createEip3009Server()],
 *   payTo: '0xMerchant…',
 *   routes: { 'GET /weather': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } },
 * }))
 */
export function paymentRequired(
  options: PaymentMiddlewareOptions,
): MiddlewareHandler<{ Variables: PaymentVariables }> {
  const gate = createPaymentGate(options)
  return async (c, next) => {
    let handlerRan = false
    const response = await gate.handle(
      { method: c.req.method, url: c.req.url, path: c.req.path, headers: c.req.raw.headers },
      async (payment) => {
        handlerRan = true
        if (payment) {
          c.set('payment', payment)
        }
        await next()
        return c.res
      },
    )
    if (!handlerRan) {
      releaseUnreadBody(c.req.raw, response, c.env)
      // Built through the context so headers set by earlier middleware (CORS) are kept.
      return c.newResponse(response.body, response)
    }
    if (response !== c.res) {
      // Clear first: hono's `res` setter would otherwise copy the handler's headers onto a 402.
      c.res = undefined
      c.res = response
    }
    return undefined
  }
}
