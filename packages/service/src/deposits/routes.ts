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
import { createPageMeta, DateRangeQuery, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'
import { chainNames } from '../reference/chains.js'
import { Deposit, toDepositResponse } from './deposit.js'
import { getDeposit, listDeposits } from './list-deposits.js'

const tags = ['Deposits']
const security = [{ ApiKey: [] }]
const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const query = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description })
const id = z.string().min(1).max(100)

/** Filters of GET /deposits (default size 20). */
export const DepositsQuery = PageQuery.extend({
  size: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({
      param: { name: 'size', in: 'query' },
      example: 20,
      description: 'items per page, 1..100 (default 20)',
    }),
  customerId: id.optional().openapi(query('customerId', 'deposits of this customer')),
  depositAccountId: id.optional().openapi(query('depositAccountId', 'deposits of this deposit account')),
  type: z.enum(['crypto', 'fiat']).optional().openapi(query('type', 'crypto or fiat')),
  status: z.enum(['pending', 'completed', 'failed']).optional().openapi(query('status', 'deposit status')),
  chain: z.enum(chainNames).optional().openapi(query('chain', 'chain of a crypto deposit')),
  currency: z
    .enum(Object.keys(ledgerCurrencies) as [string, ...string[]])
    .optional()
    .openapi(query('currency', 'balance currency credited')),
  txHash: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi(query('txHash', 'exact hash of the crypto deposit transaction')),
}).extend(DateRangeQuery.shape)

const listRoute = createRoute({
  method: 'get',
  path: '/deposits',
  tags,
  security,
  summary: 'Deposits, newest first',
  request: { query: DepositsQuery },
  responses: {
    200: { description: 'A page of deposits', content: json(toListEnvelopeSchema(Deposit)) },
    ...toErrorResponses(400, 401, 429),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/deposits/{id}',
  tags,
  security,
  summary: 'One deposit',
  request: { params: z.object({ id: id.openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The deposit', content: json(toEnvelopeSchema(Deposit)) },
    ...toErrorResponses(401, 404, 429),
  },
})

/** Routes of deposits (docs/deposits.md "Deposits"); register after the deposit-account routes. */
export function createDepositRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const q = c.req.valid('query')
      const { items, total } = await listDeposits(deps, { merchantId, environment, ...q })
      return c.json(
        createListEnvelope(
          items.map((r) => toDepositResponse(r.deposit, r.customer)),
          createPageMeta(q, total),
          'Deposits retrieved',
        ),
        200,
      )
    })
    .openapi(getRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id: depositId } = c.req.valid('param')
      const record = await getDeposit(deps, { merchantId, environment, id: depositId })
      if (!record) {
        throw new AppError('not_found', {
          message: `Deposit ${depositId} not found`,
          context: { param: 'id' },
        })
      }
      return c.json(
        createEnvelope(toDepositResponse(record.deposit, record.customer), 'Deposit retrieved'),
        200,
      )
    })
}
