import { inTransaction } from '../db/in-transaction.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { attemptDelivery, type WebhookDeps } from './deliver-webhook.js'
import { listEventDeliveries, type WebhookDelivery } from './delivery-records.js'
import { getWebhookEndpoint } from './webhook-endpoints.js'

/**
 * Sends a signed `webhook.test` event to one endpoint at once, outside the queue and without
 * retries, and returns its delivery with the attempt (the receiver's status and answer). The event
 * is recorded like any other (`GET /events`), so it can be resent.
 */
export async function sendTestWebhook(
  deps: WebhookDeps,
  input: { merchantId: string; environment: KeyEnvironment; endpointId: string },
): Promise<WebhookDelivery> {
  const endpoint = await getWebhookEndpoint(deps, { ...input, id: input.endpointId })
  const now = deps.clock.now()
  const eventId = deps.ids.create('evt')
  const deliveryId = deps.ids.create('whd')
  await inTransaction(deps.db, async (trx) => {
    await trx
      .insertInto('events')
      .values({
        id: eventId,
        merchant_id: input.merchantId,
        environment: input.environment,
        type: 'webhook.test',
        format: 'current',
        payload: JSON.stringify({
          event: 'webhook.test',
          data: { endpoint: { id: endpoint.id, url: endpoint.url }, sentAt: now.toISOString() },
        }),
        webhook_url: null,
        created_at: now,
      })
      .execute()
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id: deliveryId,
        event_id: eventId,
        endpoint_id: endpoint.id,
        merchant_id: input.merchantId,
        environment: input.environment,
        url: endpoint.url,
        status: 'pending',
        max_attempts: 1,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute()
  })
  await attemptDelivery(deps, deliveryId)
  const [delivery] = await listEventDeliveries(deps, { eventId })
  if (!delivery) {
    throw new Error(`test delivery ${deliveryId} vanished`)
  }
  return delivery
}
