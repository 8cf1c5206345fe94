import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import { inTransaction } from '../db/in-transaction.js'
import type { EventsTable } from '../db/schema/jobs-events.js'
import type { Deps } from '../deps.js'
import { toCurrentEventType } from '../events/event-types.js'
import { enqueueJobs } from '../jobs/enqueue-job.js'
import type { Db } from '../rails/types.js'

/** The job kind of one delivery attempt (payload `{ deliveryId }`, keyed by the delivery id). */
export const deliverWebhookJob = 'webhooks.deliver'

/** The number of attempts a new delivery in `environment` gets: one more than the retry delays. */
export function toMaxAttempts(deps: Pick<Deps, 'settings'>, environment: 'test' | 'live'): number {
  return deps.settings.webhookRetryDelaysMs[environment].length + 1
}

/** The columns of an event that decide its deliveries. */
export type FanOutEvent = Pick<
  Selectable<EventsTable>,
  'id' | 'merchant_id' | 'environment' | 'type' | 'webhook_url'
>

/**
 * Creates the missing deliveries of `event` in `db` (the event's own `webhook_url` only, when it has
 * one; else every enabled endpoint of its merchant and environment subscribed to its type) and
 * queues a first attempt for each: one select of the endpoints, one insert of every delivery and one
 * of every attempt job (with its NOTIFY), whatever the number of endpoints. Returns the ids of the
 * deliveries it created.
 */
export async function fanOutEvent(
  db: Db,
  deps: Pick<Deps, 'clock' | 'ids' | 'settings'>,
  event: FanOutEvent,
): Promise<string[]> {
  const targets: { endpointId: string | null; url: string }[] = []
  if (event.webhook_url) {
    targets.push({ endpointId: null, url: event.webhook_url })
  } else if (event.type !== 'webhook.test') {
    const endpoints = await db
      .selectFrom('webhook_endpoints')
      .select(['id', 'url'])
      .where('merchant_id', '=', event.merchant_id)
      .where('environment', '=', event.environment)
      .where('deleted_at', 'is', null)
      .where('disabled', '=', false)
      .where(sql<boolean>`enabled_events && array[${toCurrentEventType(event.type)}, '*']::text[]`)
      .orderBy('created_at')
      .execute()
    targets.push(...endpoints.map((e) => ({ endpointId: e.id, url: e.url })))
  }
  if (targets.length === 0) {
    return []
  }
  const now = deps.clock.now()
  const maxAttempts = toMaxAttempts(deps, event.environment)
  // Targets are either the one own webhookUrl (endpoint null) or endpoints only, so one conflict
  // target covers every row.
  const ownUrl = targets[0]?.endpointId === null
  const created = await db
    .insertInto('webhook_deliveries')
    .values(
      targets.map((target) => ({
        id: deps.ids.create('whd'),
        event_id: event.id,
        endpoint_id: target.endpointId,
        merchant_id: event.merchant_id,
        environment: event.environment,
        url: target.url,
        status: 'pending' as const,
        max_attempts: maxAttempts,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) =>
      ownUrl
        ? oc.column('event_id').where('endpoint_id', 'is', null).doNothing()
        : oc.columns(['event_id', 'endpoint_id']).where('endpoint_id', 'is not', null).doNothing(),
    )
    .returning('id')
    .execute()
  const ids = created.map((row) => row.id)
  await enqueueJobs(
    db,
    deps,
    ids.map((id) => ({ kind: deliverWebhookJob, key: id, payload: { deliveryId: id } })),
  )
  return ids
}

/**
 * Handler of the `events.dispatch` job, which `emitEvent` queued before it fanned out in the
 * caller's transaction itself: drains such jobs left in a queue from before that change, fanning the
 * event out in one transaction (a crash leaves all of its deliveries or none, and the job runs again).
 */
export async function dispatchEvent(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'settings'>,
  payload: Record<string, unknown>,
): Promise<void> {
  const eventId = String(payload.eventId)
  await inTransaction(deps.db, async (trx) => {
    const event = await trx.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirst()
    if (event) {
      await fanOutEvent(trx, deps, event)
    }
  })
}
