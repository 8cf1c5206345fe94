import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { SessionTransactionRow } from './to-session-response.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of GET /transactions; dates are inclusive bounds on `createdAt`. */
export type SessionTransactionFilters = {
  search?: string | undefined
  status?: 'pending' | 'confirmed' | 'reverted' | undefined
  chain?: string | undefined
  asset?: string | undefined
  sessionReference?: string | undefined
  customerId?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/** A page of the blockchain transactions of the merchant's sessions, newest first. */
export async function listSessionTransactions(
  deps: Pick<Deps, 'db'>,
  input: Scope & SessionTransactionFilters & { page: number; size: number },
): Promise<{ items: SessionTransactionRow[]; total: number }> {
  let query = deps.db
    .selectFrom('payment_session_transactions as t')
    .innerJoin('payment_sessions as s', 's.id', 't.session_id')
    .where('t.merchant_id', '=', input.merchantId)
    .where('t.environment', '=', input.environment)
  const exact = [
    ['t.status', input.status],
    ['t.chain', input.chain],
    ['t.asset', input.asset?.toUpperCase()],
    ['s.reference', input.sessionReference],
    ['s.customer_id', input.customerId],
  ] as const
  for (const [column, value] of exact) {
    if (value !== undefined) {
      query = query.where(column, '=', value)
    }
  }
  const search = input.search
  if (search !== undefined) {
    query = query.where((eb) =>
      eb.or([eb('t.tx_hash', '=', search), eb('t.asset', '=', search.toUpperCase())]),
    )
  }
  if (input.startDate) {
    query = query.where('t.created_at', '>=', input.startDate)
  }
  if (input.endDate) {
    query = query.where('t.created_at', '<=', input.endDate)
  }
  const [items, count] = await Promise.all([
    query
      .selectAll('t')
      .orderBy('t.created_at', 'desc')
      .orderBy('t.id', 'desc')
      .limit(input.size)
      .offset((input.page - 1) * input.size)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.total) }
}

/** The merchant's blockchain transaction with this hash (the first transfer of it), or undefined. */
export async function getSessionTransaction(
  deps: Pick<Deps, 'db'>,
  input: Scope & { txHash: string },
): Promise<SessionTransactionRow | undefined> {
  return deps.db
    .selectFrom('payment_session_transactions')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('tx_hash', '=', input.txHash)
    .orderBy('log_index')
    .orderBy('created_at')
    .executeTakeFirst()
}
