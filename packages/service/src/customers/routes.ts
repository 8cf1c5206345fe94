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
import { Customer, toCustomerResponse } from './customer.js'
import { getCustomer, listCustomers } from './list-customers.js'
import { CreateCustomerBody, UpdateCustomerBody } from './schemas.js'
import { updateCustomer } from './update-customer.js'
import { upsertCustomer } from './upsert-customer.js'

const tags = ['Customers']
const security = [{ ApiKey: [] }]
const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } })
const IdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' } }),
})

/** Filters of GET /customers. */
export const CustomersQuery = PageQuery.extend({
  email: z
    .string()
    .min(1)
    .max(254)
    .optional()
    .openapi({ param: { name: 'email', in: 'query' }, description: 'exact e-mail, case-insensitive' }),
}).extend(DateRangeQuery.shape)

const createCustomerRoute = createRoute({
  method: 'post',
  path: '/customers',
  tags,
  security,
  summary: 'Create a customer, or return the one with this e-mail',
  description: 'Accepts `Idempotency-Key`. 201 when created, 200 when a customer with the e-mail exists.',
  request: { body: { required: true, content: json(CreateCustomerBody) } },
  responses: {
    200: { description: 'The existing customer', content: json(toEnvelopeSchema(Customer)) },
    201: { description: 'The new customer', content: json(toEnvelopeSchema(Customer)) },
    ...toErrorResponses(400, 401, 409, 413, 422, 429),
  },
})

const listCustomersRoute = createRoute({
  method: 'get',
  path: '/customers',
  tags,
  security,
  summary: 'Customers, newest first',
  request: { query: CustomersQuery },
  responses: {
    200: { description: 'A page of customers', content: json(toListEnvelopeSchema(Customer)) },
    ...toErrorResponses(400, 401, 429),
  },
})

const getCustomerRoute = createRoute({
  method: 'get',
  path: '/customers/{id}',
  tags,
  security,
  summary: 'One customer',
  request: { params: IdParams },
  responses: {
    200: { description: 'The customer', content: json(toEnvelopeSchema(Customer)) },
    ...toErrorResponses(401, 404, 429),
  },
})

const updateCustomerRoute = createRoute({
  method: 'patch',
  path: '/customers/{id}',
  tags,
  security,
  summary: 'Change a customer (null clears a field; metadata merges, "" removes a key)',
  description: 'Accepts `Idempotency-Key`. 409 `customer_email_taken` when another customer has the e-mail.',
  request: { params: IdParams, body: { required: true, content: json(UpdateCustomerBody) } },
  responses: {
    200: { description: 'The changed customer', content: json(toEnvelopeSchema(Customer)) },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

/** Routes of the Customer resource (docs/deposits.md "Customers"). */
export function createCustomerRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createCustomerRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const existing =
        body.email === undefined
          ? undefined
          : (await listCustomers(deps, { merchantId, environment, email: body.email, page: 1, size: 1 }))
              .items[0]
      const customer = await upsertCustomer(deps.db, deps, { merchantId, environment, details: body })
      if (existing?.id === customer.id) {
        return c.json(createEnvelope(toCustomerResponse(customer), 'Customer with this e-mail exists'), 200)
      }
      return c.json(createEnvelope(toCustomerResponse(customer), 'Customer created'), 201)
    })
    .openapi(listCustomersRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listCustomers(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map(toCustomerResponse),
          createPageMeta(query, total),
          'Customers retrieved',
        ),
        200,
      )
    })
    .openapi(getCustomerRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const customer = await getCustomer(deps, { merchantId, environment, id })
      if (!customer) {
        throw new AppError('not_found', { message: `Customer ${id} not found`, context: { param: 'id' } })
      }
      return c.json(createEnvelope(toCustomerResponse(customer), 'Customer retrieved'), 200)
    })
    .openapi(updateCustomerRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const customer = await updateCustomer(deps, {
        merchantId,
        environment,
        id,
        changes: c.req.valid('json'),
      })
      return c.json(createEnvelope(toCustomerResponse(customer), 'Customer updated'), 200)
    })
}
