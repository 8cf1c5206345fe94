import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { assertWebhookUrl } from '../http/assert-webhook-url.js'
import {
  createEnvelope,
  createListEnvelope,
  toEnvelopeSchema,
  toErrorResponses,
  toListEnvelopeSchema,
} from '../http/envelope.js'
import { createPageMeta, DateRangeQuery, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { formatLedgerAmount, parseLedgerAmount } from '../ledger/ledger-currencies.js'
import { createSwapQuotation, getSwapQuotation } from './create-swap-quotation.js'
import { executeSwap } from './execute-swap.js'
import { listSwapRates } from './list-swap-rates.js'
import { getSwap, listSwaps } from './list-swaps.js'
import { priceSwap } from './price-swap.js'
import {
  Swap,
  SwapCurrency,
  SwapEstimate,
  SwapEstimateQuery,
  SwapExecuteBody,
  SwapQuotation,
  SwapQuotationBody,
  SwapRate,
} from './schemas.js'
import { toSwapQuotationResponse, toSwapResponse } from './to-swap-response.js'

const tags = ['Swaps']
const security = [{ ApiKey: [] }]
const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const pathId = (name: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name, in: 'path' } })
const QuotationParams = z.object({ quotationId: pathId('quotationId') })
const SwapParams = z.object({ id: pathId('id') })

/** Filters of GET /swaps. */
export const SwapsQuery = PageQuery.extend({
  fromCurrency: SwapCurrency.optional().openapi({ param: { name: 'fromCurrency', in: 'query' } }),
  toCurrency: SwapCurrency.optional().openapi({ param: { name: 'toCurrency', in: 'query' } }),
}).extend(DateRangeQuery.shape)

const ratesRoute = createRoute({
  method: 'get',
  path: '/swap/rates',
  tags,
  security,
  summary: 'Current swap rates (8 decimals) of every balance-currency pair',
  responses: {
    200: { description: 'Swap rates', content: json(toEnvelopeSchema(z.array(SwapRate))) },
    ...toErrorResponses(401, 429, 503),
  },
})

const estimateRoute = createRoute({
  method: 'get',
  path: '/swap/estimate',
  tags,
  security,
  summary: 'What a swap of `amount` would give now, without locking the rate',
  request: { query: SwapEstimateQuery },
  responses: {
    200: { description: 'The estimate', content: json(toEnvelopeSchema(SwapEstimate)) },
    ...toErrorResponses(400, 401, 429, 503),
  },
})

const quotationRoute = createRoute({
  method: 'post',
  path: '/swap/quotation',
  tags,
  security,
  summary: 'Lock a swap rate for 30 seconds',
  description: 'Accepts `Idempotency-Key`. Execute the quotation with POST /swap/execute/{quotationId}.',
  request: { body: { required: true, content: json(SwapQuotationBody) } },
  responses: {
    201: { description: 'The quotation', content: json(toEnvelopeSchema(SwapQuotation)) },
    ...toErrorResponses(400, 401, 409, 413, 422, 429, 503),
  },
})

const getQuotationRoute = createRoute({
  method: 'get',
  path: '/swap/quotation/{quotationId}',
  tags,
  security,
  summary: 'One swap quotation',
  request: { params: QuotationParams },
  responses: {
    200: { description: 'The quotation', content: json(toEnvelopeSchema(SwapQuotation)) },
    ...toErrorResponses(401, 404, 429),
  },
})

const executeRoute = createRoute({
  method: 'post',
  path: '/swap/execute/{quotationId}',
  tags,
  security,
  summary: 'Execute a quotation before it expires (once)',
  description:
    'Accepts `Idempotency-Key`. 400 `quote_expired` after 30 seconds, `quote_already_used` on a second ' +
    'execution, `insufficient_balance` when the fromCurrency balance is short. Emits `swap.completed`.',
  request: { params: QuotationParams, body: { required: false, content: json(SwapExecuteBody) } },
  responses: {
    200: { description: 'The completed swap', content: json(toEnvelopeSchema(Swap)) },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

const listRoute = createRoute({
  method: 'get',
  path: '/swaps',
  tags,
  security,
  summary: 'Swaps, newest first',
  request: { query: SwapsQuery },
  responses: {
    200: { description: 'A page of swaps', content: json(toListEnvelopeSchema(Swap)) },
    ...toErrorResponses(400, 401, 429),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/swaps/{id}',
  tags,
  security,
  summary: 'One swap',
  request: { params: SwapParams },
  responses: {
    200: { description: 'The swap', content: json(toEnvelopeSchema(Swap)) },
    ...toErrorResponses(401, 404, 429),
  },
})

const notFound = (what: string, id: string, param: string) =>
  new AppError('not_found', { message: `${what} ${id} not found`, context: { param } })

/** Routes of swaps: rates, estimates, rate-locked quotations and their execution (docs/swaps.md). */
export function createSwapRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(ratesRoute, async (c) => {
      const rates = await listSwapRates(deps)
      const data = rates.map(({ at, ...rate }) => ({ ...rate, timestamp: at.toISOString() }))
      return c.json(createEnvelope(data, 'Swap rates retrieved'), 200)
    })
    .openapi(estimateRoute, async (c) => {
      const query = c.req.valid('query')
      const price = await priceSwap(deps, {
        fromCurrency: query.fromCurrency,
        toCurrency: query.toCurrency,
        sourceAmount: parseLedgerAmount(query.amount, query.fromCurrency),
      })
      const estimate = {
        fromCurrency: price.fromCurrency,
        toCurrency: price.toCurrency,
        sourceAmount: formatLedgerAmount(price.sourceAmount, price.fromCurrency),
        targetAmount: formatLedgerAmount(price.targetAmount, price.toCurrency),
        rate: price.rate,
      }
      return c.json(createEnvelope(estimate, 'Swap estimate'), 200)
    })
    .openapi(quotationRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const quotation = await createSwapQuotation(deps, {
        merchantId,
        environment,
        fromCurrency: body.fromCurrency,
        toCurrency: body.toCurrency,
        sourceAmount: parseLedgerAmount(body.amount, body.fromCurrency),
      })
      return c.json(createEnvelope(toSwapQuotationResponse(quotation), 'Swap quotation created'), 201)
    })
    .openapi(getQuotationRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { quotationId } = c.req.valid('param')
      const quotation = await getSwapQuotation(deps, { merchantId, environment, id: quotationId })
      if (!quotation) {
        throw notFound('Swap quotation', quotationId, 'quotationId')
      }
      return c.json(createEnvelope(toSwapQuotationResponse(quotation), 'Swap quotation retrieved'), 200)
    })
    .openapi(executeRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const { quotationId } = c.req.valid('param')
      const { webhookUrl } = c.req.valid('json') ?? {}
      if (webhookUrl !== undefined) {
        assertWebhookUrl(deps.settings, { environment, url: webhookUrl })
      }
      const executed = await executeSwap(deps, { merchantId, environment, quotationId, format, webhookUrl })
      return c.json(createEnvelope(toSwapResponse(executed.swap, executed.quotation), 'Swap completed'), 200)
    })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listSwaps(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map((r) => toSwapResponse(r.swap, r.quotation)),
          createPageMeta(query, total),
          'Swaps retrieved',
        ),
        200,
      )
    })
    .openapi(getRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const record = await getSwap(deps, { merchantId, environment, id })
      if (!record) {
        throw notFound('Swap', id, 'id')
      }
      return c.json(createEnvelope(toSwapResponse(record.swap, record.quotation), 'Swap retrieved'), 200)
    })
}
