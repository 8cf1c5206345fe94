import type { RecipientType } from '../db/schema/payouts.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type PageQuery, toOffset } from '../http/pagination.js'
import type { RecipientRow } from './recipient.js'

/** Which recipients a list shows: the address book (default), temporary ones, or both. */
export type RecipientScope = 'address_book' | 'temporary' | 'all'

/** Filters of GET /recipients (docs/payouts.md "Recipients"). */
export type RecipientFilters = {
  type?: RecipientType | undefined
  scope?: RecipientScope | undefined
  customerId?: string | undefined
  search?: string | undefined
}

/** A page of a merchant's recipients, newest first, with the total matching the filters. */
export async function listRecipients(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment } & RecipientFilters & PageQuery,
): Promise<{ items: RecipientRow[]; total: number }> {
  let query = deps.db
    .selectFrom('recipients')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
  const scope = input.scope ?? 'address_book'
  if (scope !== 'all') {
    query = query.where('is_temporary', '=', scope === 'temporary')
  }
  if (input.type) {
    query = query.where('type', '=', input.type)
  }
  if (input.customerId) {
    query = query.where('customer_id', '=', input.customerId)
  }
  if (input.search) {
    const escaped = input.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)
    query = query.where('search_text', 'like', `%${escaped}%`)
  }
  const [items, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.size)
      .offset(toOffset(input))
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}
