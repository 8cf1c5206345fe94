import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { toDecimalField } from '../http/decimal-field.js'
import {
  createEnvelope,
  createListEnvelope,
  toEnvelopeSchema,
  toErrorResponses,
  toListEnvelopeSchema,
} from '../http/envelope.js'
import { queryParam, textParam } from '../http/openapi-params.js'
import { createPageMeta, DateRangeQuery, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { chainNames } from '../reference/chains.js'
import { parseFiatAmount } from './assert-session-input.js'
import { createPaymentSession } from './create-payment-session.js'
import { createSessionAddress } from './create-session-address.js'
import { estimatePayment } from './estimate-payment.js'
import { listPaymentSessions } from './list-payment-sessions.js'
import { findSessionViewByReference } from './load-payment-session.js'
import {
  AnyPaymentSession,
  CreatePaymentSessionBody,
  CreateSessionAddressBody,
  PaymentEstimate,
  paymentStatuses,
  QueryBoolean,
  settlementCurrencies,
} from './schemas.js'
import { sessionCurrencies } from './session-money.js'
import { type SessionView, toSessionResponse } from './to-session-response.js'

const tags = ['Payment sessions']
const security = [{ ApiKey: [] }]
const sessionResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: toEnvelopeSchema(AnyPaymentSession) } },
})

/** Filters of GET /payments (the spec gives their meaning; the names are ours, see docs/sessions.md). */
export const PaymentSessionsQuery = PageQuery.extend({
  search: textParam()
    .optional()
    .openapi(queryParam('search', 'session reference, deposit address or transaction hash')),
  invoiceId: textParam().optional().openapi(queryParam('invoiceId', 'invoice reference')),
  customerId: textParam().optional().openapi(queryParam('customerId', 'customer id')),
  pageReference: textParam().optional().openapi(queryParam('pageReference', 'payment page reference')),
  state: z.enum(['open', 'closed']).optional().openapi(queryParam('state', 'session state')),
  status: z.enum(paymentStatuses).optional().openapi(queryParam('status', 'payment.status')),
  asset: textParam(16).optional().openapi(queryParam('asset', 'asset symbol, e.g. USDC')),
  chain: z.enum(chainNames).optional().openapi(queryParam('chain', 'blockchain')),
  minAmount: toDecimalField().optional().openapi(queryParam('minAmount', 'minimum fiat amount, inclusive')),
  maxAmount: toDecimalField().optional().openapi(queryParam('maxAmount', 'maximum fiat amount, inclusive')),
  includeTransactions: QueryBoolean.optional().openapi(
    queryParam('includeTransactions', 'true adds `transactions` to each session'),
  ),
  type: z.enum(['checkout']).optional().openapi(queryParam('type', 'session type')),
  currency: z.enum(sessionCurrencies).optional().openapi(queryParam('currency', 'fiat currency')),
  isRefunded: QueryBoolean.optional().openapi(
    queryParam('isRefunded', 'true: refunded sessions only; false: the others'),
  ),
}).extend(DateRangeQuery.shape)

const ReferenceParams = z.object({
  reference: textParam(100).openapi({ param: { name: 'reference', in: 'path' } }),
})

/** Query of GET /payments/estimate. */
export const EstimateQuery = z.object({
  amount: toDecimalField()
    .optional()
    .openapi(queryParam('amount', 'fiat amount (required without reference)')),
  currency: z
    .enum(sessionCurrencies)
    .optional()
    .openapi(queryParam('currency', 'fiat currency (required without reference)')),
  asset: textParam(16).optional().openapi(queryParam('asset', 'asset symbol (required without reference)')),
  chain: z
    .enum(chainNames)
    .optional()
    .openapi(queryParam('chain', 'blockchain (required without reference)')),
  feePayer: z.enum(['merchant', 'customer']).optional().openapi(queryParam('feePayer', 'who pays the fees')),
  settlementCurrency: z
    .enum(settlementCurrencies)
    .optional()
    .openapi(queryParam('settlementCurrency', 'settlement currency')),
  reference: textParam(100)
    .optional()
    .openapi(queryParam('reference', 'a session whose values fill the missing ones')),
})

const listRoute = createRoute({
  method: 'get',
  path: '/payments',
  tags,
  security,
  summary: 'Payment sessions, newest first',
  request: { query: PaymentSessionsQuery },
  responses: {
    200: {
      description: 'A page of sessions',
      content: { 'application/json': { schema: toListEnvelopeSchema(AnyPaymentSession) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const createSessionRoute = createRoute({
  method: 'post',
  path: '/payments',
  tags,
  security,
  summary: 'Create a payment session (payment link)',
  description:
    'Accepts `Idempotency-Key`. The deposit address is created at once when asset, chain and a customer e-mail are given.',
  request: {
    body: { required: true, content: { 'application/json': { schema: CreatePaymentSessionBody } } },
  },
  responses: {
    200: sessionResponse('The new session'),
    ...toErrorResponses(400, 401, 409, 413, 422, 429),
  },
})

const addressRoute = createRoute({
  method: 'post',
  path: '/payments/{reference}/address',
  tags,
  security,
  summary: 'Create the deposit address of a session and lock its rate',
  request: {
    params: ReferenceParams,
    body: { required: true, content: { 'application/json': { schema: CreateSessionAddressBody } } },
  },
  responses: {
    200: sessionResponse('The session with its address'),
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/payments/reference/{reference}',
  tags,
  security,
  summary: 'One payment session by reference',
  request: {
    params: ReferenceParams,
    query: z.object({
      includeTransactions: QueryBoolean.optional().openapi(
        queryParam('includeTransactions', 'true adds `transactions`'),
      ),
    }),
  },
  responses: { 200: sessionResponse('The session'), ...toErrorResponses(400, 401, 404, 429) },
})

const estimateRoute = createRoute({
  method: 'get',
  path: '/payments/estimate',
  tags,
  security,
  summary: 'Crypto amount of a session at the current rate (not locked)',
  request: { query: EstimateQuery },
  responses: {
    200: {
      description: 'The estimate',
      content: { 'application/json': { schema: toEnvelopeSchema(PaymentEstimate) } },
    },
    ...toErrorResponses(400, 401, 404, 429),
  },
})

/** Routes of payment sessions: create, address, read, list and estimate. */
export function createPaymentRoutes(deps: Deps) {
  const render = (view: SessionView, format: 'current' | 'legacy') => toSessionResponse(deps, view, format)
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const q = c.req.valid('query')
      const { items, total } = await listPaymentSessions(deps, {
        ...q,
        merchantId,
        environment,
        minAmount: q.minAmount === undefined ? undefined : parseFiatAmount(q.minAmount, 'minAmount', 'query'),
        maxAmount: q.maxAmount === undefined ? undefined : parseFiatAmount(q.maxAmount, 'maxAmount', 'query'),
      })
      const data = items.map((view) => render(view, format))
      return c.json(createListEnvelope(data, createPageMeta(q, total), 'Payment sessions retrieved'), 200)
    })
    .openapi(createSessionRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const view = await createPaymentSession(deps, {
        merchantId,
        environment,
        format,
        body: c.req.valid('json'),
      })
      return c.json(createEnvelope(render(view, format), 'Payment session created'), 200)
    })
    .openapi(addressRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const { reference } = c.req.valid('param')
      const view = await createSessionAddress(deps, {
        merchantId,
        environment,
        reference,
        body: c.req.valid('json'),
      })
      return c.json(createEnvelope(render(view, format), 'Deposit address created'), 200)
    })
    .openapi(getRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const { reference } = c.req.valid('param')
      const { includeTransactions } = c.req.valid('query')
      const view = await findSessionViewByReference(deps.db, {
        merchantId,
        environment,
        reference,
        transactions: includeTransactions ?? false,
      })
      return c.json(createEnvelope(render(view, format), 'Payment session retrieved'), 200)
    })
    .openapi(estimateRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const estimate = await estimatePayment(deps, { ...c.req.valid('query'), merchantId, environment })
      return c.json(createEnvelope(estimate, 'Estimate computed'), 200)
    })
}
