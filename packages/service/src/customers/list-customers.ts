import { selectPage } from '../db/select-page.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { CustomerRow } from './customer.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of {@link listCustomers}: exact e-mail (case-insensitive), inclusive `createdAt` bounds. */
export type CustomerFilters = {
  email?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/** A page of a merchant's customers, newest first, and how many match in total. */
export async function listCustomers(
  deps: Pick<Deps, 'db'>,
  input: Scope & CustomerFilters & { page: number; size: number },
): Promise<{ items: CustomerRow[]; total: number }> {
  let query = deps.db
    .selectFrom('customers')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  if (input.email !== undefined) {
    query = query.where((eb) => eb(eb.fn('lower', ['email']), '=', input.email?.toLowerCase() ?? ''))
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'created_at' })
  return { items: rows, total }
}

/** One of a merchant's customers; `undefined` when absent or another merchant's or environment's. */
export function getCustomer(
  deps: Pick<Deps, 'db'>,
  input: Scope & { id: string },
): Promise<CustomerRow | undefined> {
  return deps.db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('id', '=', input.id)
    .executeTakeFirst()
}
