import { z } from '@hono/zod-openapi'
import type { Kysely, Selectable } from 'kysely'
import type { Database } from '../db/database.js'
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/schema/webhooks.js'
import type { Deps } from '../deps.js'

/** One logged HTTP attempt of a delivery. */
export const WebhookAttempt = z
  .object({
    attempt: z.number().int().describe('1-based'),
    startedAt: z.string().describe('ISO 8601'),
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable().describe('null when no HTTP answer came'),
    succeeded: z.boolean(),
    error: z.string().nullable().describe('`<code>: <message>`, e.g. `timeout: …`, `http_status: HTTP 500`'),
    responseBody: z.string().nullable().describe("the receiver's answer, first 4 KiB"),
  })
  .openapi('WebhookAttempt')

/** The WebhookDelivery resource: one event to one endpoint (or to the object's own webhookUrl). */
export const WebhookDelivery = z
  .object({
    id: z.string().openapi({ example: 'whd_0a1b2c3d4e5f6a7b8c9d0e1f' }),
    eventId: z.string(),
    endpointId: z.string().nullable().describe("null for a delivery to the object's own webhookUrl"),
    url: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attemptCount: z.number().int(),
    maxAttempts: z.number().int(),
    nextAttemptAt: z.string().nullable().describe('ISO 8601, while pending'),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string().describe('ISO 8601'),
    completedAt: z.string().nullable().describe('ISO 8601, once succeeded or failed'),
    attempts: z.array(WebhookAttempt),
  })
  .openapi('WebhookDelivery')
/** The WebhookDelivery resource of the API. */
export type WebhookDelivery = z.infer<typeof WebhookDelivery>

type DeliveryRow = Selectable<WebhookDeliveriesTable>
type AttemptRow = Selectable<WebhookAttemptsTable>

/** Renders a delivery row with its attempts (in attempt order). */
export function toWebhookDeliveryResponse(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    url: row.url,
    status: row.status,
    attemptCount: row.attempts,
    maxAttempts: row.max_attempts,
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: a.started_at.toISOString(),
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      succeeded: a.succeeded,
      error: a.error,
      responseBody: a.response_body,
    })),
  }
}

/**
 * The deliveries of an event (oldest first) with their attempts; the caller checked the event is
 * theirs. Both are read in one repeatable-read snapshot: a worker logs an attempt and moves its
 * delivery in one statement, and two separate reads could see the delivery before that statement
 * and its new attempt after it (a delivery still `pending` with a retry time beside the attempt
 * that succeeded, as `tollgate listen` once printed).
 */
export async function listEventDeliveries(
  deps: Pick<Deps, 'db'>,
  input: { eventId: string; deliveryIds?: string[] },
): Promise<WebhookDelivery[]> {
  if (input.deliveryIds?.length === 0) {
    return []
  }
  const read = (db: Kysely<Database>) => readEventDeliveries(db, input)
  return deps.db.isTransaction
    ? read(deps.db)
    : deps.db.transaction().setIsolationLevel('repeatable read').execute(read)
}

async function readEventDeliveries(
  db: Kysely<Database>,
  input: { eventId: string; deliveryIds?: string[] },
): Promise<WebhookDelivery[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', input.eventId)
  if (input.deliveryIds) {
    query = query.where('id', 'in', input.deliveryIds)
  }
  const deliveries = await query.orderBy('created_at').orderBy('id').execute()
  if (deliveries.length === 0) {
    return []
  }
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      deliveries.map((d) => d.id),
    )
    .orderBy('attempt')
    .execute()
  return deliveries.map((d) =>
    toWebhookDeliveryResponse(
      d,
      attempts.filter((a) => a.delivery_id === d.id),
    ),
  )
}
