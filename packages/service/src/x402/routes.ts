import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError, type FacilitatorClient } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import {
  createEnvelope,
  createListEnvelope,
  toEnvelopeSchema,
  toErrorResponses,
  toListEnvelopeSchema,
} from '../http/envelope.js'
import { createPageMeta, DateRangeQuery, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { chainNames } from '../reference/chains.js'
import { buildRequirements } from './build-requirements.js'
import { getX402Supported } from './get-x402-supported.js'
import { getX402Transaction, listX402Transactions } from './list-x402-transactions.js'
import { createPayToCache } from './parse-x402-request.js'
import {
  FacilitatorBody,
  RequirementsBody,
  VerifyData,
  X402Requirements,
  X402Supported,
  X402Transaction,
} from './schemas.js'
import { settleX402 } from './settle-x402.js'
import { verifyX402 } from './verify-x402.js'

const tags = ['x402']
const security = [{ ApiKey: [] }]
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } })
const query = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description })

/** Filters of GET /x402/transactions. */
export const X402TransactionsQuery = PageQuery.extend({
  search: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi(query('search', 'transaction hash, payer or payTo address')),
  status: z
    .enum(['confirmed', 'pending', 'failed'])
    .optional()
    .openapi(query('status', 'transaction status')),
  chain: z.enum(chainNames).optional().openapi(query('chain', 'blockchain')),
  asset: z.string().min(1).max(16).optional().openapi(query('asset', 'asset symbol, e.g. USDC')),
}).extend(DateRangeQuery.shape)

const routes = {
  requirements: createRoute({
    method: 'post',
    path: '/x402/requirements',
    tags,
    security,
    summary: 'Build x402 payment requirements paying the merchant',
    request: { body: { required: true, ...json(RequirementsBody) } },
    responses: {
      201: { description: 'Requirements', ...json(toEnvelopeSchema(X402Requirements)) },
      ...toErrorResponses(400, 401, 413, 429, 503),
    },
  }),
  verify: createRoute({
    method: 'post',
    path: '/x402/verify',
    tags,
    security,
    summary: 'Verify a signed x402 payment without settling it',
    request: { body: { required: true, ...json(FacilitatorBody) } },
    responses: {
      201: { description: 'The verdict with per-check results', ...json(toEnvelopeSchema(VerifyData)) },
      ...toErrorResponses(400, 401, 413, 429, 503),
    },
  }),
  settle: createRoute({
    method: 'post',
    path: '/x402/settle',
    tags,
    security,
    summary: 'Settle a signed x402 payment on-chain (the facilitator pays the gas)',
    request: { body: { required: true, ...json(FacilitatorBody) } },
    responses: {
      201: { description: 'The x402 transaction', ...json(toEnvelopeSchema(X402Transaction)) },
      ...toErrorResponses(400, 401, 409, 413, 422, 429, 502, 503),
    },
  }),
  supported: createRoute({
    method: 'get',
    path: '/x402/supported',
    tags,
    security,
    summary: 'Payment kinds the merchant API settles',
    responses: {
      200: {
        description: 'Kinds',
        ...json(toEnvelopeSchema(X402Supported)),
      },
      ...toErrorResponses(401, 429, 503),
    },
  }),
  list: createRoute({
    method: 'get',
    path: '/x402/transactions',
    tags,
    security,
    summary: 'Settled x402 payments, newest first',
    request: { query: X402TransactionsQuery },
    responses: {
      200: { description: 'A page of x402 transactions', ...json(toListEnvelopeSchema(X402Transaction)) },
      ...toErrorResponses(400, 401, 429),
    },
  }),
  get: createRoute({
    method: 'get',
    path: '/x402/transactions/{txHash}',
    tags,
    security,
    summary: 'One x402 transaction by hash',
    request: {
      params: z.object({
        txHash: z
          .string()
          .min(1)
          .max(128)
          .openapi({ param: { name: 'txHash', in: 'path' } }),
      }),
    },
    responses: {
      200: { description: 'The x402 transaction', ...json(toEnvelopeSchema(X402Transaction)) },
      ...toErrorResponses(401, 404, 429),
    },
  }),
}

/**
 * Routes of the spec's "x402 agent payments" on the in-process `facilitator`; without one the
 * verify, settle, requirements and supported routes answer 503 `provider_unavailable`.
 */
export function createX402Routes(deps: Deps, facilitator: FacilitatorClient | undefined) {
  const need = (): FacilitatorClient => {
    if (!facilitator) {
      throw new AppError('provider_unavailable', { message: 'No x402 facilitator is configured' })
    }
    return facilitator
  }
  const payToCache = createPayToCache()
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(routes.requirements, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const data = await buildRequirements(deps, need(), {
        merchantId,
        environment,
        body: c.req.valid('json'),
      })
      return c.json(createEnvelope(data, 'Payment requirements created'), 201)
    })
    .openapi(routes.verify, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const data = await verifyX402(deps, need(), { merchantId, environment, body }, payToCache)
      return c.json(createEnvelope(data, data.isValid ? 'Payment is valid' : 'Payment is invalid'), 201)
    })
    .openapi(routes.settle, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const transaction = await settleX402(deps, need(), { merchantId, environment, body }, payToCache)
      return c.json(createEnvelope(transaction, 'Payment settled'), 201)
    })
    .openapi(routes.supported, async (c) => {
      const data = await getX402Supported(deps, need(), { environment: c.get('auth').environment })
      return c.json(createEnvelope(data, 'Supported kinds retrieved'), 200)
    })
    .openapi(routes.list, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const filters = c.req.valid('query')
      const { items, total } = await listX402Transactions(deps, { merchantId, environment, ...filters })
      return c.json(
        createListEnvelope(items, createPageMeta(filters, total), 'x402 transactions retrieved'),
        200,
      )
    })
    .openapi(routes.get, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { txHash } = c.req.valid('param')
      const transaction = await getX402Transaction(deps, { merchantId, environment, txHash })
      if (!transaction) {
        throw new AppError('not_found', {
          message: `x402 transaction ${txHash} not found`,
          context: { param: 'txHash' },
        })
      }
      return c.json(createEnvelope(transaction, 'x402 transaction retrieved'), 200)
    })
}
