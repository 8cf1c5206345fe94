import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { subscribableEventTypes } from '../events/event-types.js'
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
import { rotateAccountSecret } from './account-secret.js'
import type { WebhookDeps } from './deliver-webhook.js'
import { WebhookDelivery } from './delivery-records.js'
import { sendTestWebhook } from './send-test-webhook.js'
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  toWebhookEndpointResponse,
  updateWebhookEndpoint,
  WebhookEndpoint,
} from './webhook-endpoints.js'

const tags = ['Webhooks']
const security = [{ ApiKey: [] }]

const EndpointParams = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'whe_3f2a9c0d1e2b4a5c6d7e8f90' }),
})

const url = z
  .string()
  .min(1)
  .max(2_048)
  .describe('https URL (plain http to localhost only for sandbox keys in the sandbox)')
const description = z.string().max(500).nullable().describe('free text for your own reference')
const enabledEvents = z
  .array(z.enum(subscribableEventTypes))
  .min(1)
  .max(50)
  .describe('event types to deliver (current or legacy names); `["*"]` for all, the default')

/** Body of POST /webhooks/endpoints. */
export const CreateWebhookEndpointBody = z
  .object({ url, description: description.optional(), enabledEvents: enabledEvents.optional() })
  .strict()
  .openapi('CreateWebhookEndpointBody')

/** Body of PATCH /webhooks/endpoints/{id}: any of the fields, at least one. */
export const UpdateWebhookEndpointBody = z
  .object({
    url: url.optional(),
    description: description.optional(),
    enabledEvents: enabledEvents.optional(),
    status: z.enum(['enabled', 'disabled']).optional().describe('disabled endpoints receive nothing'),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' })
  .openapi('UpdateWebhookEndpointBody')

// Routes that take no input still validate a JSON body if one is sent: it must be `{}`.
const emptyBody = {
  required: false,
  content: { 'application/json': { schema: z.object({}).strict() } },
}

const AccountSecret = z
  .object({
    secret: z
      .string()
      .optional()
      .describe('`whsec_…`; shown only now (absent when an `Idempotency-Key` replays this answer)'),
    previousSecretExpiresAt: z.string().nullable().describe('ISO 8601; the previous secret signs until then'),
  })
  .openapi('WebhookAccountSecret')

const endpointResponse = (description: string) => ({
  200: { description, content: { 'application/json': { schema: toEnvelopeSchema(WebhookEndpoint) } } },
})

const listRoute = createRoute({
  method: 'get',
  path: '/webhooks/endpoints',
  tags,
  security,
  summary: 'Webhook endpoints of the merchant in the key environment, newest first',
  request: { query: PageQuery },
  responses: {
    200: {
      description: 'A page of endpoints (without secrets)',
      content: { 'application/json': { schema: toListEnvelopeSchema(WebhookEndpoint) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const createEndpointRoute = createRoute({
  method: 'post',
  path: '/webhooks/endpoints',
  tags,
  security,
  summary: 'Create a webhook endpoint; the answer holds its signing secret, shown only this once',
  description: 'Accepts `Idempotency-Key`. See docs/webhooks.md for signatures, retries and URL rules.',
  request: {
    body: { required: true, content: { 'application/json': { schema: CreateWebhookEndpointBody } } },
  },
  responses: {
    ...endpointResponse('The endpoint with its `secret`'),
    ...toErrorResponses(400, 401, 409, 413, 422, 429),
  },
})

const getEndpointRoute = createRoute({
  method: 'get',
  path: '/webhooks/endpoints/{id}',
  tags,
  security,
  summary: 'One webhook endpoint (without its secret)',
  request: { params: EndpointParams },
  responses: { ...endpointResponse('The endpoint'), ...toErrorResponses(401, 404, 429) },
})

const updateEndpointRoute = createRoute({
  method: 'patch',
  path: '/webhooks/endpoints/{id}',
  tags,
  security,
  summary: "Change a webhook endpoint's URL, description, event types or status",
  request: {
    params: EndpointParams,
    body: { required: true, content: { 'application/json': { schema: UpdateWebhookEndpointBody } } },
  },
  responses: { ...endpointResponse('The changed endpoint'), ...toErrorResponses(400, 401, 404, 413, 429) },
})

const deleteEndpointRoute = createRoute({
  method: 'delete',
  path: '/webhooks/endpoints/{id}',
  tags,
  security,
  summary: 'Delete a webhook endpoint; its pending deliveries end as failed',
  request: { params: EndpointParams },
  responses: { ...endpointResponse('The deleted endpoint'), ...toErrorResponses(401, 404, 429) },
})

const rotateRoute = createRoute({
  method: 'post',
  path: '/webhooks/endpoints/{id}/rotate-secret',
  tags,
  security,
  summary: 'Give an endpoint a new signing secret (shown once); the old one signs too for 24 hours',
  request: { params: EndpointParams, body: emptyBody },
  responses: {
    ...endpointResponse('The endpoint with its new `secret`'),
    ...toErrorResponses(400, 401, 404, 429),
  },
})

const testRoute = createRoute({
  method: 'post',
  path: '/webhooks/endpoints/{id}/test',
  tags,
  security,
  summary: 'Send a signed `webhook.test` event to the endpoint now, once, and return the attempt',
  request: { params: EndpointParams, body: emptyBody },
  responses: {
    200: {
      description: 'The delivery with its one attempt (status, latency, answer)',
      content: { 'application/json': { schema: toEnvelopeSchema(WebhookDelivery) } },
    },
    ...toErrorResponses(400, 401, 404, 429),
  },
})

const accountSecretRoute = createRoute({
  method: 'post',
  path: '/webhooks/account-secret/rotate',
  tags,
  security,
  summary:
    "New secret for deliveries to objects' own webhookUrl (shown once; the old one signs for 24 hours)",
  description:
    'Deliveries to the `webhookUrl` given on a session, payout or swap are signed with this per-environment secret.',
  request: { body: emptyBody },
  responses: {
    200: {
      description: 'The new secret',
      content: { 'application/json': { schema: toEnvelopeSchema(AccountSecret) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

/** Routes of webhook endpoints (ours; the spec's "dashboard" URL), their secrets and test sends. */
export function createWebhookRoutes(deps: WebhookDeps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listWebhookEndpoints(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map((row) => toWebhookEndpointResponse(row)),
          createPageMeta(query, total),
          'Webhook endpoints retrieved',
        ),
        200,
      )
    })
    .openapi(createEndpointRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const row = await createWebhookEndpoint(deps, { merchantId, environment, ...body })
      return c.json(createEnvelope(toWebhookEndpointResponse(row, true), 'Webhook endpoint created'), 200)
    })
    .openapi(getEndpointRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const row = await getWebhookEndpoint(deps, { merchantId, environment, id: c.req.valid('param').id })
      return c.json(createEnvelope(toWebhookEndpointResponse(row), 'Webhook endpoint retrieved'), 200)
    })
    .openapi(updateEndpointRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const row = await updateWebhookEndpoint(deps, {
        merchantId,
        environment,
        id: c.req.valid('param').id,
        ...c.req.valid('json'),
      })
      return c.json(createEnvelope(toWebhookEndpointResponse(row), 'Webhook endpoint updated'), 200)
    })
    .openapi(deleteEndpointRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const row = await deleteWebhookEndpoint(deps, { merchantId, environment, id: c.req.valid('param').id })
      return c.json(createEnvelope(toWebhookEndpointResponse(row), 'Webhook endpoint deleted'), 200)
    })
    .openapi(rotateRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const row = await rotateWebhookEndpointSecret(deps, {
        merchantId,
        environment,
        id: c.req.valid('param').id,
      })
      return c.json(createEnvelope(toWebhookEndpointResponse(row, true), 'Webhook secret rotated'), 200)
    })
    .openapi(testRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const delivery = await sendTestWebhook(deps, {
        merchantId,
        environment,
        endpointId: c.req.valid('param').id,
      })
      return c.json(createEnvelope(delivery, 'Test event sent'), 200)
    })
    .openapi(accountSecretRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const next = await rotateAccountSecret(deps.db, deps, { merchantId, environment })
      return c.json(
        createEnvelope(
          {
            secret: next.secret,
            previousSecretExpiresAt: next.previousSecretExpiresAt?.toISOString() ?? null,
          },
          'Account webhook secret rotated',
        ),
        200,
      )
    })
}
