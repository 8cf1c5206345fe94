import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
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
import { getSessionTransaction, listSessionTransactions } from './list-session-transactions.js'
import { getSettlement, listSettlements } from './list-settlements.js'
import { BlockchainTransaction, Settlement, settlementCurrencies, transactionStatuses } from './schemas.js'
import { toTransactionResponse } from './to-session-response.js'

const security = [{ ApiKey: [] }]
const Entity = z.enum(['session', 'invoice'])

const listSettlementsRoute = createRoute({
  method: 'get',
  path: '/settlements',
  tags: ['Settlements'],
  security,
  summary: 'Settlements of sessions, most recent first',
  request: {
    query: PageQuery.extend({
      entity: Entity.optional().openapi(queryParam('entity', 'session or invoice')),
      currency: z
        .enum(settlementCurrencies)
        .optional()
        .openapi(queryParam('currency', 'settlement currency')),
    }),
  },
  responses: {
    200: {
      description: 'A page of settlements',
      content: { 'application/json': { schema: toListEnvelopeSchema(Settlement) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const getSettlementRoute = createRoute({
  method: 'get',
  path: '/settlements/{reference}',
  tags: ['Settlements'],
  security,
  summary: 'The settlement of one session (or invoice) by reference',
  request: {
    params: z.object({ reference: textParam(100).openapi({ param: { name: 'reference', in: 'path' } }) }),
    query: z.object({
      entity: Entity.default('session').openapi(queryParam('entity', 'session (default) or invoice')),
    }),
  },
  responses: {
    200: {
      description: 'The settlement',
      content: { 'application/json': { schema: toEnvelopeSchema(Settlement) } },
    },
    ...toErrorResponses(400, 401, 404, 429),
  },
})

/** Filters of GET /transactions (spec names). */
export const SessionTransactionsQuery = PageQuery.extend({
  search: textParam().optional().openapi(queryParam('search', 'transaction hash or asset')),
  status: z
    .enum(transactionStatuses)
    .optional()
    .openapi(queryParam('status', 'pending, confirmed or reverted')),
  chain: z.enum(chainNames).optional().openapi(queryParam('chain', 'blockchain')),
  asset: textParam(16).optional().openapi(queryParam('asset', 'asset symbol')),
  sessionReference: textParam(100)
    .optional()
    .openapi(queryParam('sessionReference', 'payment session reference')),
  customerId: textParam(100).optional().openapi(queryParam('customerId', 'customer of the session')),
}).extend(DateRangeQuery.shape)

const listTransactionsRoute = createRoute({
  method: 'get',
  path: '/transactions',
  tags: ['Blockchain transactions'],
  security,
  summary: 'Blockchain transactions of payment sessions, newest first',
  request: { query: SessionTransactionsQuery },
  responses: {
    200: {
      description: 'A page of transactions',
      content: { 'application/json': { schema: toListEnvelopeSchema(BlockchainTransaction) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const getTransactionRoute = createRoute({
  method: 'get',
  path: '/transactions/{txHash}',
  tags: ['Blockchain transactions'],
  security,
  summary: 'One blockchain transaction of a session by hash',
  request: {
    params: z.object({ txHash: textParam(200).openapi({ param: { name: 'txHash', in: 'path' } }) }),
  },
  responses: {
    200: {
      description: 'The transaction',
      content: { 'application/json': { schema: toEnvelopeSchema(BlockchainTransaction) } },
    },
    ...toErrorResponses(401, 404, 429),
  },
})

/** Routes of settlements and of the blockchain transactions of payment sessions. */
export function createSettlementRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listSettlementsRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const q = c.req.valid('query')
      const { items, total } = await listSettlements(deps, { ...q, merchantId, environment })
      return c.json(createListEnvelope(items, createPageMeta(q, total), 'Settlements retrieved'), 200)
    })
    .openapi(getSettlementRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { reference } = c.req.valid('param')
      const { entity } = c.req.valid('query')
      const settlement = await getSettlement(deps, { merchantId, environment, reference, entity })
      if (!settlement) {
        throw new AppError('not_found', {
          message: `Settlement ${reference} not found`,
          context: { param: 'reference' },
        })
      }
      return c.json(createEnvelope(settlement, 'Settlement retrieved'), 200)
    })
    .openapi(listTransactionsRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const q = c.req.valid('query')
      const { items, total } = await listSessionTransactions(deps, { ...q, merchantId, environment })
      const data = items.map((row) => toTransactionResponse(deps, row))
      return c.json(createListEnvelope(data, createPageMeta(q, total), 'Transactions retrieved'), 200)
    })
    .openapi(getTransactionRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { txHash } = c.req.valid('param')
      const row = await getSessionTransaction(deps, { merchantId, environment, txHash })
      if (!row) {
        throw new AppError('not_found', {
          message: `Transaction ${txHash} not found`,
          context: { param: 'txHash' },
        })
      }
      return c.json(createEnvelope(toTransactionResponse(deps, row), 'Transaction retrieved'), 200)
    })
}
