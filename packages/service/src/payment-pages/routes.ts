import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import { assertKeyEnvironmentAllowed } from '../auth/assert-key-environment-allowed.js'
import { authenticateApiKey } from '../auth/authenticate-api-key.js'
import { createClientIpReader } from '../checkout/client-ip.js'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import {
  createEnvelope,
  createListEnvelope,
  toEnvelopeSchema,
  toErrorResponses,
  toListEnvelopeSchema,
} from '../http/envelope.js'
import { IdPathParams, queryParam, textParam } from '../http/openapi-params.js'
import { createPageMeta, PageQuery } from '../http/pagination.js'
import { createRateLimitMiddleware, type RateLimiter } from '../http/rate-limit.js'
import { createUrlTextGuard } from '../http/url-text-guard.js'
import { validationHook } from '../http/validation-hook.js'
import { QueryBoolean } from '../payments/schemas.js'
import { findPublicPaymentPage, listPaymentPages, toPaymentPageView } from './load-payment-page.js'
import {
  CreatePaymentPageBody,
  PaymentPage,
  PublicPaymentPage,
  toPaymentPageResponse,
  toPublicPaymentPage,
  UpdatePaymentPageBody,
} from './payment-page.js'
import { createPaymentPage, deletePaymentPage, updatePaymentPage } from './save-payment-page.js'

const tags = ['Payment pages']
const security = [{ ApiKey: [] }]
const pageResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: toEnvelopeSchema(PaymentPage) } },
})

/** Filters of GET /payments/pages. */
export const PaymentPagesQuery = PageQuery.extend({
  search: textParam(100).optional().openapi(queryParam('search', 'case-insensitive text in the title')),
  isActive: QueryBoolean.optional().openapi(queryParam('isActive', 'true or false')),
})

const listRoute = createRoute({
  method: 'get',
  path: '/payments/pages',
  tags,
  security,
  summary: 'Payment pages, newest first (deleted ones excluded)',
  request: { query: PaymentPagesQuery },
  responses: {
    200: {
      description: 'A page of payment pages',
      content: { 'application/json': { schema: toListEnvelopeSchema(PaymentPage) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const createPageRoute = createRoute({
  method: 'post',
  path: '/payments/pages',
  tags,
  security,
  summary: 'Create a payment page',
  description:
    'Money (`minAmount`, product `price`) is a JSON number with at most 2 decimals. `enableQuantity` needs products; `bankAccountIds` are NGN bank recipients of the merchant, on NGN pages. Accepts `Idempotency-Key`.',
  request: {
    body: { required: true, content: { 'application/json': { schema: CreatePaymentPageBody } } },
  },
  responses: {
    201: pageResponse('The new page'),
    ...toErrorResponses(400, 401, 409, 413, 422, 429),
  },
})

const updateRoute = createRoute({
  method: 'patch',
  path: '/payments/pages/{id}',
  tags,
  security,
  summary: 'Change a payment page (`products` replaces the list; an item with an `id` keeps that product)',
  request: {
    params: IdPathParams,
    body: { required: true, content: { 'application/json': { schema: UpdatePaymentPageBody } } },
  },
  responses: {
    200: pageResponse('The page'),
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

const deleteRoute = createRoute({
  method: 'delete',
  path: '/payments/pages/{id}',
  tags,
  security,
  summary: 'Delete a payment page (its url then says it was removed; its sessions stay)',
  request: { params: IdPathParams },
  responses: {
    200: { description: 'Deleted: 200 with no content (spec), an empty body' },
    ...toErrorResponses(401, 404, 429),
  },
})

const publicRoute = createRoute({
  method: 'get',
  path: '/payments/pages/{reference}/sessions',
  tags,
  // `{}`: no key needed; a key that is sent must be valid.
  security: [{}, { ApiKey: [] }],
  summary: 'Public view of a payment page (no key needed; rate-limited per client IP)',
  description:
    'What the hosted page shows, nothing more: active products, bank accounts with masked numbers, `isActive`. A deleted page is a 404.',
  request: {
    params: z.object({ reference: textParam(100).openapi({ param: { name: 'reference', in: 'path' } }) }),
  },
  responses: {
    200: {
      description: 'The public view',
      content: { 'application/json': { schema: toEnvelopeSchema(PublicPaymentPage) } },
    },
    ...toErrorResponses(401, 404, 429),
  },
})

/** The merchant's payment page routes (under `/api/v1`, behind the API key). */
export function createPaymentPageRoutes(deps: Deps) {
  const render = (view: Parameters<typeof toPaymentPageResponse>[1]) =>
    toPaymentPageResponse(deps.settings.publicBaseUrl, view)
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listPaymentPages(deps.db, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(items.map(render), createPageMeta(query, total), 'Payment pages retrieved'),
        200,
      )
    })
    .openapi(createPageRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const view = await createPaymentPage(deps, { merchantId, environment, body: c.req.valid('json') })
      return c.json(createEnvelope(render(view), 'Payment page created'), 201)
    })
    .openapi(updateRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const view = await updatePaymentPage(deps, { merchantId, environment, id, body: c.req.valid('json') })
      return c.json(createEnvelope(render(view), 'Payment page updated'), 200)
    })
    .openapi(deleteRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      await deletePaymentPage(deps, { merchantId, environment, id: c.req.valid('param').id })
      // The spec's "200 with no content": no body at all (Content-Length 0, so clients skip parsing).
      return c.body(null, 200, { 'Content-Length': '0' })
    })
}

/**
 * The keyless public view of a page, GET /payments/pages/{reference}/sessions: mounted under `/api/v1`
 * before the key middleware, limited per client IP by the hosted pages' limiter.
 */
export function createPublicPaymentPageRoutes(deps: Deps, rateLimiter: RateLimiter) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  // GET only: other methods on this path fall through to the keyed API (and its per-key limit).
  app.on(
    'GET',
    '/payments/pages/:reference/sessions',
    createRateLimitMiddleware(rateLimiter, createClientIpReader(deps.settings.trustedProxies)),
  )
  app.on('GET', '/payments/pages/:reference/sessions', createUrlTextGuard())
  return app.openapi(publicRoute, async (c) => {
    const key = c.req.header('x-api-key')
    if (key !== undefined) {
      assertKeyEnvironmentAllowed(deps.settings, key)
    }
    if (key !== undefined && !(await authenticateApiKey(deps, key))) {
      throw new AppError('unauthorized', { message: 'Invalid or revoked API key' })
    }
    const row = await findPublicPaymentPage(deps.db, c.req.valid('param').reference)
    if (row.deleted_at !== null) {
      throw new AppError('not_found', { message: 'Payment page not found', context: { param: 'reference' } })
    }
    const view = await toPaymentPageView(deps.db, row)
    c.header('Cache-Control', 'no-store')
    return c.json(
      createEnvelope(toPublicPaymentPage(deps.settings.publicBaseUrl, view), 'Payment page retrieved'),
      200,
    )
  })
}
