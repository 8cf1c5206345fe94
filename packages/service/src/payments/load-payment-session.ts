import { AppError } from '@tollgate/core'
import type { KeyEnvironment } from '../http/app-env.js'
import type { Db } from '../rails/types.js'
import type { SessionRow } from './session-settlement.js'
import type { SessionTransactionRow, SessionView } from './to-session-response.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** The merchant's session with this reference, or 404 `not_found` (another merchant's is a 404 too). */
export async function findSessionByReference(
  db: Db,
  input: Scope & { reference: string; forUpdate?: boolean },
): Promise<SessionRow> {
  let query = db
    .selectFrom('payment_sessions')
    .selectAll()
    .where('reference', '=', input.reference)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  if (input.forUpdate) {
    query = query.forUpdate()
  }
  const row = await query.executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', {
      message: `Payment session ${input.reference} not found`,
      context: { param: 'reference' },
    })
  }
  return row
}

/** Adds the customer (and, when asked, the transactions) to session rows, in two queries at most each. */
export async function toSessionViews(
  db: Db,
  rows: SessionRow[],
  options: { transactions?: boolean } = {},
): Promise<SessionView[]> {
  const customerIds = [...new Set(rows.flatMap((r) => (r.customer_id ? [r.customer_id] : [])))]
  const customers =
    customerIds.length === 0
      ? []
      : await db.selectFrom('customers').selectAll().where('id', 'in', customerIds).execute()
  const byCustomer = new Map(customers.map((c) => [c.id, c]))
  let bySession: Map<string, SessionTransactionRow[]> | undefined
  if (options.transactions && rows.length > 0) {
    const transactions = await db
      .selectFrom('payment_session_transactions')
      .selectAll()
      .where(
        'session_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    bySession = new Map()
    for (const transaction of transactions) {
      bySession.set(transaction.session_id, [...(bySession.get(transaction.session_id) ?? []), transaction])
    }
  }
  return rows.map((row) => ({
    row,
    customer: row.customer_id ? (byCustomer.get(row.customer_id) ?? null) : null,
    ...(bySession ? { transactions: bySession.get(row.id) ?? [] } : {}),
  }))
}
