import { z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Selectable } from 'kysely'
import type { EventsTable } from '../db/schema/jobs-events.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'

/** An event row as read from the database. */
export type EventRow = Selectable<EventsTable>

/** The Event resource: `payload` is the webhook body exactly as delivered (`{ event, data }`). */
export const Event = z
  .object({
    id: z.string().openapi({ example: 'evt_5b1f0c2d3e4f5a6b7c8d9e0f' }),
    type: z.string().describe('event type in the response format of the key that created the object'),
    payload: z.object({ event: z.string(), data: z.record(z.string(), z.unknown()) }),
    webhookUrl: z.string().nullable().describe("the object's own webhookUrl, which replaced the endpoints"),
    createdAt: z.string().describe('ISO 8601'),
  })
  .openapi('Event')
/** The Event resource of the API. */
export type Event = z.infer<typeof Event>

/** Renders an event row as the API's Event resource. */
export function toEventResponse(row: EventRow): Event {
  return {
    id: row.id,
    type: row.type,
    payload: row.payload as Event['payload'],
    webhookUrl: row.webhook_url,
    createdAt: row.created_at.toISOString(),
  }
}

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of {@link listEvents}; dates are inclusive bounds on `createdAt`. */
export type EventFilters = {
  type?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/** A page of the merchant's events in an environment, newest first, and the total. */
export async function listEvents(
  deps: Pick<Deps, 'db'>,
  input: Scope & EventFilters & { page: number; size: number },
): Promise<{ items: EventRow[]; total: number }> {
  let query = deps.db
    .selectFrom('events')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  if (input.type !== undefined) {
    query = query.where('type', '=', input.type)
  }
  if (input.startDate) {
    query = query.where('created_at', '>=', input.startDate)
  }
  if (input.endDate) {
    query = query.where('created_at', '<=', input.endDate)
  }
  const [items, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('seq', 'desc')
      .limit(input.size)
      .offset((input.page - 1) * input.size)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

/** One event of the merchant in the environment; a 404 `not_found` otherwise. */
export async function getEvent(deps: Pick<Deps, 'db'>, input: Scope & { id: string }): Promise<EventRow> {
  const row = await deps.db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', input.id)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', { message: `Event ${input.id} not found`, context: { param: 'id' } })
  }
  return row
}
