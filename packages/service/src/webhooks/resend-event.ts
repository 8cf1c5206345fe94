import { AppError } from '@tollgate/core'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import { getEvent } from '../events/event-records.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { enqueueJob } from '../jobs/enqueue-job.js'
import { listEventDeliveries, type WebhookDelivery } from './delivery-records.js'
import { deliverWebhookJob, fanOutEvent } from './dispatch-event.js'

/**
 * Sends an event again (docs/webhooks.md "Resend"): endpoints subscribed since it was emitted get
 * their first delivery; a delivery that ended gets one more attempt; a pending one is attempted now
 * instead of at its scheduled time. `endpointId` limits it to one endpoint (404 when that endpoint
 * has no delivery of the event and is not subscribed). Returns the deliveries it queued.
 */
export async function resendEvent(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'settings'>,
  input: {
    merchantId: string
    environment: KeyEnvironment
    eventId: string
    endpointId?: string | undefined
  },
): Promise<WebhookDelivery[]> {
  const event = await getEvent(deps, { ...input, id: input.eventId })
  const queued = await inTransaction(deps.db, async (trx) => {
    await fanOutEvent(trx, deps, event)
    let query = trx
      .selectFrom('webhook_deliveries as d')
      .leftJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select(['d.id', 'd.status', 'd.attempts'])
      .where('d.event_id', '=', event.id)
      .where('w.deleted_at', 'is', null)
      // A delivery row is locked so a worker finishing an attempt right now cannot overwrite the reset.
      .forUpdate('d')
    if (input.endpointId !== undefined) {
      query = query.where('d.endpoint_id', '=', input.endpointId)
    }
    const deliveries = await query.execute()
    if (deliveries.length === 0 && input.endpointId !== undefined) {
      throw new AppError('not_found', {
        message: `Event ${event.id} has no delivery to endpoint ${input.endpointId}`,
        context: { param: 'endpointId' },
      })
    }
    const now = deps.clock.now()
    for (const delivery of deliveries) {
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: 'pending',
          next_attempt_at: now,
          updated_at: now,
          completed_at: null,
          ...(delivery.status === 'pending' ? {} : { max_attempts: delivery.attempts + 1 }),
        })
        .where('id', '=', delivery.id)
        .execute()
      // A queued attempt job (waiting for its retry time) is moved to now; else a new one is queued.
      await trx
        .updateTable('jobs')
        .set({ run_at: now, updated_at: now })
        .where('kind', '=', deliverWebhookJob)
        .where('key', '=', delivery.id)
        .where('status', '=', 'queued')
        .execute()
      await enqueueJob(trx, deps, {
        kind: deliverWebhookJob,
        key: delivery.id,
        payload: { deliveryId: delivery.id },
      })
    }
    return deliveries.map((d) => d.id)
  })
  return listEventDeliveries(deps, { eventId: event.id, deliveryIds: queued })
}
