import { sql } from 'kysely'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { Db } from '../rails/types.js'
import type { CustomerRow } from './customer.js'

/** Customer details as a session, deposit account or the customers API gives them. */
export type CustomerDetails = {
  email?: string | undefined
  firstName?: string | undefined
  lastName?: string | undefined
  phone?: string | undefined
  telegramId?: string | undefined
  metadata?: Record<string, string> | undefined
}

/**
 * Returns the merchant's customer with this e-mail (case-insensitive), filling in fields it lacked,
 * or creates one. Without an e-mail a new customer is always created. Safe under concurrency: two
 * callers with one new e-mail end with one customer.
 */
export async function upsertCustomer(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; details: CustomerDetails },
): Promise<CustomerRow> {
  return toUpsertCustomerQuery(db, deps, input).executeTakeFirstOrThrow()
}

/**
 * The statement of {@link upsertCustomer}, not run, returning the customer's row: a caller may make
 * it a CTE of its own statement (POST /payments).
 */
export function toUpsertCustomerQuery(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; details: CustomerDetails },
) {
  const now = deps.clock.now()
  const { details } = input
  const values = {
    id: deps.ids.create('cus'),
    merchant_id: input.merchantId,
    environment: input.environment,
    email: details.email ?? null,
    first_name: details.firstName ?? null,
    last_name: details.lastName ?? null,
    phone: details.phone ?? null,
    telegram_id: details.telegramId ?? null,
    metadata: JSON.stringify(details.metadata ?? {}),
    created_at: now,
    updated_at: now,
  }
  if (details.email === undefined) {
    return db.insertInto('customers').values(values).returningAll()
  }
  // The conflict target is the partial unique index on lower(email); existing values win over nulls.
  return db
    .insertInto('customers')
    .values(values)
    .onConflict((oc) =>
      oc.expression(sql`merchant_id, environment, lower(email)`).where('email', 'is not', null).doUpdateSet({
        first_name: sql`coalesce(customers.first_name, excluded.first_name)`,
        last_name: sql`coalesce(customers.last_name, excluded.last_name)`,
        phone: sql`coalesce(customers.phone, excluded.phone)`,
        telegram_id: sql`coalesce(customers.telegram_id, excluded.telegram_id)`,
        updated_at: now,
      }),
    )
    .returningAll()
}
