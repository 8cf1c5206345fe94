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
import { IdPathParams, queryParam } from '../http/openapi-params.js'
import { createPageMeta, DateRangeQuery, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { getBalanceTransaction, listBalanceTransactions } from '../ledger/balance-transactions.js'
import { getBalances } from '../ledger/get-balances.js'
import {
  Balance,
  BalanceTransaction,
  balanceCurrencies,
  balanceTransactionSources,
  balanceTransactionStatuses,
} from './schemas.js'
import { toBalanceResponse, toBalanceTransactionResponse } from './to-balance-response.js'

const tags = ['Balances']
const security = [{ ApiKey: [] }]

/** Filters of GET /balance/transactions (documented names; the spec leaves them open). */
export const BalanceTransactionsQuery = PageQuery.extend({
  source: z.enum(balanceTransactionSources).optional().openapi(queryParam('source', 'what moved the money')),
  status: z.enum(balanceTransactionStatuses).optional().openapi(queryParam('status', 'transaction status')),
  direction: z
    .enum(['credit', 'debit'])
    .optional()
    .openapi(queryParam('direction', 'credit = in, debit = out')),
  currency: z.enum(balanceCurrencies).optional().openapi(queryParam('currency', 'balance currency')),
  txHash: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi(queryParam('txHash', 'exact hash of the crypto deposit transaction')),
}).extend(DateRangeQuery.shape)

const balanceRoute = createRoute({
  method: 'get',
  path: '/balance',
  tags,
  security,
  summary: 'Balances of the merchant, one per currency',
  responses: {
    200: {
      description: 'Balances',
      content: { 'application/json': { schema: toEnvelopeSchema(z.array(Balance)) } },
    },
    ...toErrorResponses(401, 429),
  },
})

const transactionsRoute = createRoute({
  method: 'get',
  path: '/balance/transactions',
  tags,
  security,
  summary: 'Balance transactions, newest first',
  request: { query: BalanceTransactionsQuery },
  responses: {
    200: {
      description: 'A page of balance transactions',
      content: { 'application/json': { schema: toListEnvelopeSchema(BalanceTransaction) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const transactionRoute = createRoute({
  method: 'get',
  path: '/balance/transactions/{id}',
  tags,
  security,
  summary: 'One balance transaction with the balance before and after it',
  request: {
    params: IdPathParams,
  },
  responses: {
    200: {
      description: 'The balance transaction',
      content: { 'application/json': { schema: toEnvelopeSchema(BalanceTransaction) } },
    },
    ...toErrorResponses(401, 404, 429),
  },
})

/** Routes of the merchant's balances and balance transactions, read through the ledger. */
export function createBalanceRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(balanceRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const balances = await getBalances(deps, { merchantId, environment })
      return c.json(createEnvelope(balances.map(toBalanceResponse), 'Balances retrieved'), 200)
    })
    .openapi(transactionsRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listBalanceTransactions(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map(toBalanceTransactionResponse),
          createPageMeta(query, total),
          'Balance transactions retrieved',
        ),
        200,
      )
    })
    .openapi(transactionRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const transaction = await getBalanceTransaction(deps, { merchantId, environment, id })
      if (!transaction) {
        throw new AppError('not_found', {
          message: `Balance transaction ${id} not found`,
          context: { param: 'id' },
        })
      }
      return c.json(
        createEnvelope(toBalanceTransactionResponse(transaction), 'Balance transaction retrieved'),
        200,
      )
    })
}
