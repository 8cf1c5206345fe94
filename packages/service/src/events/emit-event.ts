import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import type { Db } from '../rails/types.js'
import { fanOutEvent } from '../webhooks/dispatch-event.js'
import { type EventType, toWireEventType } from './event-types.js'

/** Input of {@link emitEvent}. `data` is the object exactly as the API returns it in `format`. */
export type EmitEventInput = {
  merchantId: string
  environment: KeyEnvironment
  type: EventType
  /** Response format of the key that created the object; decides event name and payload shape. */
  format: ResponseFormat
  /** `{ session }`, `{ payout }`, `{ deposit }` or `{ swap }`. */
  data: Record<string, unknown>
  /** The object's own webhookUrl, replacing the merchant's endpoints for this event only. */
  webhookUrl?: string | null
}

/**
 * The job kind that fanned an event out to its webhook deliveries before `emitEvent` did it in the
 * caller's transaction; still handled, for such jobs queued before that change.
 */
export const dispatchEventJob = 'events.dispatch'

/**
 * Records a webhook event in the outbox inside `db`, the caller's transaction, so the state change and
 * its event commit together or not at all, and fans it out there: one delivery and one queued
 * attempt job per subscribed endpoint (docs/webhooks.md), four statements whatever the number of
 * endpoints. Returns the `evt_…` id, or null when the format has no such event (legacy keys get no
 * `payment.underpaid`).
 */
export async function emitEvent(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock' | 'settings'>,
  input: EmitEventInput,
): Promise<string | null> {
  const wireType = toWireEventType(input.type, input.format)
  if (wireType === null) {
    return null
  }
  const event = {
    id: deps.ids.create('evt'),
    merchant_id: input.merchantId,
    environment: input.environment,
    type: wireType,
    webhook_url: input.webhookUrl ?? null,
  }
  await db
    .insertInto('events')
    .values({
      ...event,
      format: input.format,
      payload: JSON.stringify({ event: wireType, data: input.data }),
      created_at: deps.clock.now(),
    })
    .execute()
  await fanOutEvent(db, deps, event)
  return event.id
}
