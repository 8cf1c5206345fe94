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
import { createPageMeta, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { chainNames } from '../reference/chains.js'
import { addDepositIdentity } from './add-deposit-identity.js'
import { createDepositAccount, updateDepositAccount } from './create-deposit-account.js'
import { DepositAccount, settlementCurrencies, toDepositAccountResponse } from './deposit-account.js'
import { findDepositAccount, listDepositAccounts } from './list-deposit-accounts.js'

const tags = ['Deposit accounts']
const security = [{ ApiKey: [] }]
const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const pathParam = (name: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name, in: 'path' } })
const IdParams = z.object({ id: pathParam('id') })
const SettlementCurrency = z.enum(settlementCurrencies).describe('`default` or a balance currency')

/** Query of GET /deposits/accounts. */
export const DepositAccountsQuery = PageQuery.extend({
  status: z
    .enum(['active'])
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
})

/** Body of POST /deposits/accounts. */
export const CreateDepositAccountBody = z
  .object({
    customerId: z.string().min(1).max(100).optional().describe('omit for the merchant parent account'),
    settlementCurrency: SettlementCurrency.optional().describe(
      'default `default`; the parent is always `default`',
    ),
  })
  .strict()
  .openapi('CreateDepositAccountBody')

/** Body of PATCH /deposits/accounts/{id}. */
export const UpdateDepositAccountBody = z
  .object({ settlementCurrency: SettlementCurrency })
  .strict()
  .openapi('UpdateDepositAccountBody')

/** Body of POST /deposits/accounts/{id}/identities. */
export const AddDepositIdentityBody = z
  .object({
    type: z.enum(['static_deposit_address', 'ngn_virtual_account']),
    chain: z.enum(chainNames).optional().describe('required for static_deposit_address'),
    bvn: z
      .string()
      .regex(/^\d{11}$/, 'must be 11 digits')
      .optional()
      .describe('11 digits; required for ngn_virtual_account (not stored by us)'),
    currency: z.enum(['NGN']).optional().describe('currency of the virtual account (NGN)'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.type === 'static_deposit_address' && body.chain === undefined) {
      ctx.addIssue({ code: 'custom', path: ['chain'], message: 'required for static_deposit_address' })
    }
    if (body.type === 'ngn_virtual_account' && body.bvn === undefined) {
      ctx.addIssue({ code: 'custom', path: ['bvn'], message: 'required for ngn_virtual_account' })
    }
  })
  .openapi('AddDepositIdentityBody')

const accountResponse = {
  description: 'The deposit account',
  content: json(toEnvelopeSchema(DepositAccount)),
}

const listRoute = createRoute({
  method: 'get',
  path: '/deposits/accounts',
  tags,
  security,
  summary: 'Deposit accounts, newest first',
  request: { query: DepositAccountsQuery },
  responses: {
    200: { description: 'A page of deposit accounts', content: json(toListEnvelopeSchema(DepositAccount)) },
    ...toErrorResponses(400, 401, 429),
  },
})

const createAccountRoute = createRoute({
  method: 'post',
  path: '/deposits/accounts',
  tags,
  security,
  summary: "Create a customer's deposit account (or the parent); repeat calls return the existing one",
  description: 'Accepts `Idempotency-Key`. One account per holder: a repeat call returns it unchanged.',
  request: { body: { required: false, content: json(CreateDepositAccountBody) } },
  responses: { 200: accountResponse, ...toErrorResponses(400, 401, 404, 409, 413, 422, 429) },
})

const parentRoute = createRoute({
  method: 'get',
  path: '/deposits/accounts/parent',
  tags,
  security,
  summary: "The merchant's parent deposit account (created on first use)",
  responses: { 200: accountResponse, ...toErrorResponses(401, 429) },
})

const byCustomerRoute = createRoute({
  method: 'get',
  path: '/deposits/accounts/customer/{customerId}',
  tags,
  security,
  summary: "A customer's deposit account",
  request: { params: z.object({ customerId: pathParam('customerId') }) },
  responses: { 200: accountResponse, ...toErrorResponses(401, 404, 429) },
})

const getAccountRoute = createRoute({
  method: 'get',
  path: '/deposits/accounts/{id}',
  tags,
  security,
  summary: 'One deposit account',
  request: { params: IdParams },
  responses: { 200: accountResponse, ...toErrorResponses(401, 404, 429) },
})

const updateAccountRoute = createRoute({
  method: 'patch',
  path: '/deposits/accounts/{id}',
  tags,
  security,
  summary: "Change a customer account's settlement currency (new deposits only)",
  description: 'Accepts `Idempotency-Key`. The parent account is always `default` (400).',
  request: { params: IdParams, body: { required: true, content: json(UpdateDepositAccountBody) } },
  responses: { 200: accountResponse, ...toErrorResponses(400, 401, 404, 409, 413, 422, 429) },
})

const identitiesRoute = createRoute({
  method: 'post',
  path: '/deposits/accounts/{id}/identities',
  tags,
  security,
  summary: 'Add a static deposit address (per chain) or an NGN virtual account (for a BVN)',
  description: 'Accepts `Idempotency-Key`. A repeat call for a chain or NGN returns the account unchanged.',
  request: { params: IdParams, body: { required: true, content: json(AddDepositIdentityBody) } },
  responses: { 200: accountResponse, ...toErrorResponses(400, 401, 404, 409, 413, 422, 429, 503) },
})

const notFound = (what: string, id: string, param: string) =>
  new AppError('not_found', { message: `${what} ${id} not found`, context: { param } })

/** Routes of deposit accounts and their identities (docs/deposits.md "Deposit accounts"). */
export function createDepositAccountRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listDepositAccounts(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map(toDepositAccountResponse),
          createPageMeta(query, total),
          'Deposit accounts retrieved',
        ),
        200,
      )
    })
    .openapi(createAccountRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const body = c.req.valid('json') ?? {}
      const record = await createDepositAccount(deps, { merchantId, environment, format, ...body })
      return c.json(createEnvelope(toDepositAccountResponse(record), 'Deposit account'), 200)
    })
    .openapi(parentRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const record =
        (await findDepositAccount(deps.db, { merchantId, environment, parent: true })) ??
        (await createDepositAccount(deps, { merchantId, environment, format }))
      return c.json(createEnvelope(toDepositAccountResponse(record), 'Parent deposit account'), 200)
    })
    .openapi(byCustomerRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { customerId } = c.req.valid('param')
      const record = await findDepositAccount(deps.db, { merchantId, environment, customerId })
      if (!record) {
        throw notFound('Deposit account of customer', customerId, 'customerId')
      }
      return c.json(createEnvelope(toDepositAccountResponse(record), 'Deposit account retrieved'), 200)
    })
    .openapi(getAccountRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const record = await findDepositAccount(deps.db, { merchantId, environment, id })
      if (!record) {
        throw notFound('Deposit account', id, 'id')
      }
      return c.json(createEnvelope(toDepositAccountResponse(record), 'Deposit account retrieved'), 200)
    })
    .openapi(updateAccountRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const { settlementCurrency } = c.req.valid('json')
      const record = await updateDepositAccount(deps, { merchantId, environment, id, settlementCurrency })
      return c.json(createEnvelope(toDepositAccountResponse(record), 'Deposit account updated'), 200)
    })
    .openapi(identitiesRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const body = c.req.valid('json')
      const scope = { merchantId, environment, depositAccountId: id }
      const record = await addDepositIdentity(
        deps,
        body.type === 'static_deposit_address'
          ? { ...scope, type: body.type, chain: body.chain ?? 'base' }
          : { ...scope, type: body.type, bvn: body.bvn ?? '' },
      )
      return c.json(createEnvelope(toDepositAccountResponse(record), 'Deposit account identity added'), 200)
    })
}
