import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
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
import type { WebhookDeps } from '../webhooks/deliver-webhook.js'
import { listEventDeliveries, WebhookDelivery } from '../webhooks/delivery-records.js'
import { resendEvent } from '../webhooks/resend-event.js'
import { Event, getEvent, listEvents, toEventResponse } from './event-records.js'
import { eventTypes, subscribableEventTypes } from './event-types.js'

const tags = ['Events']
const security = [{ ApiKey: [] }]

const wireEventTypes = [
  ...new Set([...eventTypes, ...subscribableEventTypes.filter((type) => type !== '*')]),
] as [string, ...string[]]

/** Filters of GET /events. */
export const EventsQuery = PageQuery.extend({
  type: z
    .enum(wireEventTypes)
    .optional()
    .openapi({ param: { name: 'type', in: 'query' }, description: 'exact event type (as delivered)' }),
}).extend(DateRangeQuery.shape)

const EventParams = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'evt_5b1f0c2d3e4f5a6b7c8d9e0f' }),
})

/** Body of POST /events/{id}/resend: optionally one endpoint only. */
export const ResendEventBody = z
  .object({
    endpointId: z.string().min(1).max(100).optional().describe('resend to this endpoint only'),
  })
  .strict()
  .openapi('ResendEventBody')

const listRoute = createRoute({
  method: 'get',
  path: '/events',
  tags,
  security,
  summary: 'Events of the merchant in the key environment, newest first',
  request: { query: EventsQuery },
  responses: {
    200: {
      description: 'A page of events',
      content: { 'application/json': { schema: toListEnvelopeSchema(Event) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/events/{id}',
  tags,
  security,
  summary: 'One event with the webhook body it delivers',
  request: { params: EventParams },
  responses: {
    200: { description: 'The event', content: { 'application/json': { schema: toEnvelopeSchema(Event) } } },
    ...toErrorResponses(401, 404, 429),
  },
})

const deliveriesRoute = createRoute({
  method: 'get',
  path: '/events/{id}/deliveries',
  tags,
  security,
  summary: "The event's webhook deliveries, each with every attempt logged",
  request: { params: EventParams },
  responses: {
    200: {
      description: 'Deliveries, oldest first',
      content: { 'application/json': { schema: toEnvelopeSchema(z.array(WebhookDelivery)) } },
    },
    ...toErrorResponses(401, 404, 429),
  },
})

const resendRoute = createRoute({
  method: 'post',
  path: '/events/{id}/resend',
  tags,
  security,
  summary: 'Deliver the event again (one more attempt per ended delivery; pending ones are attempted now)',
  description:
    'Accepts `Idempotency-Key`. Attempts run in the background; follow them on GET /events/{id}/deliveries.',
  request: {
    params: EventParams,
    body: { required: false, content: { 'application/json': { schema: ResendEventBody } } },
  },
  responses: {
    200: {
      description: 'The deliveries queued',
      content: { 'application/json': { schema: toEnvelopeSchema(z.array(WebhookDelivery)) } },
    },
    ...toErrorResponses(400, 401, 404, 409, 422, 429),
  },
})

/** Routes of the events outbox: list, read, deliveries and resend. */
export function createEventRoutes(deps: WebhookDeps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listEvents(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(items.map(toEventResponse), createPageMeta(query, total), 'Events retrieved'),
        200,
      )
    })
    .openapi(getRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const row = await getEvent(deps, { merchantId, environment, id: c.req.valid('param').id })
      return c.json(createEnvelope(toEventResponse(row), 'Event retrieved'), 200)
    })
    .openapi(deliveriesRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const event = await getEvent(deps, { merchantId, environment, id: c.req.valid('param').id })
      return c.json(
        createEnvelope(await listEventDeliveries(deps, { eventId: event.id }), 'Deliveries retrieved'),
        200,
      )
    })
    .openapi(resendRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      // The body is optional: without one there is nothing to validate.
      const body: { endpointId?: string | undefined } | undefined = c.req.valid('json')
      const deliveries = await resendEvent(deps, {
        merchantId,
        environment,
        eventId: c.req.valid('param').id,
        endpointId: body?.endpointId,
      })
      return c.json(createEnvelope(deliveries, 'Event queued for delivery'), 200)
    })
}
