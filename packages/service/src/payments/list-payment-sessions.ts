import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { toOffset } from '../http/pagination.js'
import { toSessionViews } from './load-payment-session.js'
import type { SessionView } from './to-session-response.js'

/** Filters of GET /payments (names in docs/sessions.md "Listing sessions"); amounts in fiat minor units. */
export type PaymentSessionFilters = {
  search?: string | undefined
  invoiceId?: string | undefined
  customerId?: string | undefined
  pageReference?: string | undefined
  state?: 'open' | 'closed' | undefined
  status?: string | undefined
  asset?: string | undefined
  chain?: string | undefined
  minAmount?: bigint | undefined
  maxAmount?: bigint | undefined
  type?: string | undefined
  currency?: string | undefined
  isRefunded?: boolean | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
  includeTransactions?: boolean | undefined
}

/** A page of the merchant's sessions, newest first, and how many match. */
export async function listPaymentSessions(
  deps: Pick<Deps, 'db'>,
  input: PaymentSessionFilters & {
    merchantId: string
    environment: KeyEnvironment
    page: number
    size: number
  },
): Promise<{ items: SessionView[]; total: number }> {
  let query = deps.db
    .selectFrom('payment_sessions as s')
    .where('s.merchant_id', '=', input.merchantId)
    .where('s.environment', '=', input.environment)
  const exact = [
    ['s.invoice_id', input.invoiceId],
    ['s.customer_id', input.customerId],
    ['s.page_reference', input.pageReference],
    ['s.state', input.state],
    ['s.payment_status', input.status],
    ['s.asset', input.asset?.toUpperCase()],
    ['s.chain', input.chain],
    ['s.type', input.type],
    ['s.currency', input.currency],
    ['s.is_refunded', input.isRefunded],
  ] as const
  for (const [column, value] of exact) {
    if (value !== undefined) {
      query = query.where(column, '=', value as never)
    }
  }
  if (input.minAmount !== undefined) {
    query = query.where('s.amount', '>=', input.minAmount.toString())
  }
  if (input.maxAmount !== undefined) {
    query = query.where('s.amount', '<=', input.maxAmount.toString())
  }
  if (input.startDate) {
    query = query.where('s.created_at', '>=', input.startDate)
  }
  if (input.endDate) {
    query = query.where('s.created_at', '<=', input.endDate)
  }
  const search = input.search
  if (search !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('s.reference', '=', search),
        eb('s.address', '=', search),
        eb.exists(
          eb
            .selectFrom('payment_session_transactions as t')
            .select('t.id')
            .whereRef('t.session_id', '=', 's.id')
            .where('t.tx_hash', '=', search),
        ),
      ]),
    )
  }
  const [rows, count] = await Promise.all([
    query
      .selectAll('s')
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(input.size)
      .offset(toOffset(input))
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ])
  const items = await toSessionViews(deps.db, rows, { transactions: input.includeTransactions ?? false })
  return { items, total: Number(count.total) }
}
