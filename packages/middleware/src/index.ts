/**
 * Merchant side of x402: answer 402 with payment requirements for protected routes, verify and
 * settle payments through a facilitator (ours in-process, ours or any other over HTTP), and hand
 * the payment to the handler. Adapters for hono, any Fetch-API handler, and Express.
 *
 * @example
 * import { paymentRequired } from '@tollgate/middleware'
 * app.use(paymentRequired({
 *   facilitator: 'https://x402.org/facilitator',
 *   schemes: [createEip3009Server()],
 *   payTo: '0xYourAddress',
 *   routes: { 'GET /weather': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } },
 * }))
 * app.get('/weather', (c) => c.json({ paidBy: c.get('payment').payer }))
 *
 * @module
 */
import './errors.js'

export type { FacilitatorOperation, HttpFacilitatorClientOptions } from './create-http-facilitator-client.js'
export { createHttpFacilitatorClient } from './create-http-facilitator-client.js'
export type { MerchantApiX402, MerchantApiX402Options } from './create-merchant-api-x402.js'
export { createMerchantApiX402 } from './create-merchant-api-x402.js'
export type { GateNext, GateRequest, PaymentGate } from './create-payment-gate.js'
export { createPaymentGate } from './create-payment-gate.js'
export type { PaidFetchHandler } from './create-payment-handler.js'
export { createPaymentHandler, getPayment } from './create-payment-handler.js'
export { matchPayment } from './match-payment.js'
export type { PaymentClaimStore } from './payment-claims.js'
export { createMemoryPaymentClaims } from './payment-claims.js'
export type {
  PaymentIdentifierCache,
  PaymentIdentifierOptions,
  PaymentIdState,
} from './payment-identifier.js'
export { createPaymentIdentifierCache, PAYMENT_IDENTIFIER } from './payment-identifier.js'
export type { PaymentVariables } from './payment-required.js'
export { paymentRequired } from './payment-required.js'
export type {
  ExpressLikeMiddleware,
  ExpressLikeRequest,
  ExpressLikeResponse,
} from './payment-required-express.js'
export { paymentRequiredExpress } from './payment-required-express.js'
export { renderPaywallHtml } from './paywall-html.js'
export type { PaymentClaimsQueryable, PostgresPaymentClaimsOptions } from './postgres-payment-claims.js'
export { createPostgresPaymentClaims } from './postgres-payment-claims.js'
export type {
  AcceptOption,
  FacilitatorOption,
  PaymentFlow,
  PaymentInfo,
  PaymentMiddlewareOptions,
  PayTo,
  PaywallOptions,
  Price,
  RouteConfig,
  RoutesConfig,
} from './types.js'
