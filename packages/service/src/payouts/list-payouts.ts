import { sql } from 'kysely'
import type { PayoutStatus } from '../db/schema/payouts.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type PageQuery, toOffset } from '../http/pagination.js'
import type { PayoutRow } from './payout.js'

/** Filters of GET /payouts (the spec's, plus the date range). */
export type PayoutFilters = {
  search?: string | undefined
  status?: PayoutStatus | undefined
  recipientId?: string | undefined
  method?: 'fiat' | 'crypto' | undefined
  currency?: string | undefined
  chain?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/**
 * A page of a merchant's payouts, newest first. `search` is an exact id, reference or tx hash;
 * `currency` matches the balance debited or the currency the recipient receives; `chain` keeps
 * crypto payouts on that chain only.
 */
export async function listPayouts(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment } & PayoutFilters & PageQuery,
): Promise<{ items: PayoutRow[]; total: number }> {
  let query = deps.db
    .selectFrom('payouts')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  const { search, currency, chain } = input
  if (search) {
    query = query.where((eb) =>
      eb.or([
        eb('id', '=', search),
        eb('reference', '=', search),
        eb(eb.fn('lower', ['tx_hash']), '=', search.toLowerCase()),
      ]),
    )
  }
  if (input.status) {
    query = query.where('status', '=', input.status)
  }
  if (input.recipientId) {
    query = query.where('recipient_id', '=', input.recipientId)
  }
  if (input.method) {
    query = query.where('method', '=', input.method)
  }
  if (currency) {
    query = query.where((eb) => eb.or([eb('currency', '=', currency), eb('target_currency', '=', currency)]))
  }
  if (chain) {
    query = query
      .where('method', '=', 'crypto')
      .where(sql<string>`recipient -> 'details' ->> 'chain'`, '=', chain)
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
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.size)
      .offset(toOffset(input))
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

/** A merchant's payout by id in one environment, or undefined. */
export function findPayout(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string },
): Promise<PayoutRow | undefined> {
  return deps.db
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', input.id)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .executeTakeFirst()
}
