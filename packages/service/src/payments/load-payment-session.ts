import { AppError } from '@tollgate/core'
import type { CompiledQuery } from 'kysely'
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

/**
 * The merchant's session with this reference and its customer in one indexed query (GET
 * /payments/reference/{reference}; the transactions, when asked, are a second), or 404 `not_found`.
 */
export async function findSessionViewByReference(
  db: Db,
  input: Scope & { reference: string; transactions?: boolean },
): Promise<SessionView> {
  const query = compiledSessionView(db)
  const { rows } = await db.executeQuery<SessionViewRow>({
    ...query,
    parameters: [input.reference, input.merchantId, input.environment],
  })
  const found = rows[0]
  if (!found) {
    throw new AppError('not_found', {
      message: `Payment session ${input.reference} not found`,
      context: { param: 'reference' },
    })
  }
  const { row, customer } = splitSessionCustomer(found)
  if (!input.transactions) {
    return { row, customer }
  }
  const transactions = await loadSessionTransactions(db, [row.id])
  return { row, customer, transactions: transactions.get(row.id) ?? [] }
}

function buildSessionView(db: Db, scope: Scope & { reference: string }) {
  return db
    .selectFrom('payment_sessions as s')
    .leftJoin('customers as c', 'c.id', 's.customer_id')
    .selectAll('s')
    .select(sessionCustomerColumns)
    .where('s.reference', '=', scope.reference)
    .where('s.merchant_id', '=', scope.merchantId)
    .where('s.environment', '=', scope.environment)
}

type SessionViewRow = Awaited<ReturnType<ReturnType<typeof buildSessionView>['executeTakeFirstOrThrow']>>
type SessionViewQuery = CompiledQuery<SessionViewRow>

// The GET's select compiled once per database handle: only its three parameters change, and
// building and compiling Kysely's tree on every request was a measurable part of a GET's CPU.
const sessionViewQueries = new WeakMap<Db, SessionViewQuery>()

function compiledSessionView(db: Db): SessionViewQuery {
  let query = sessionViewQueries.get(db)
  if (!query) {
    const marks = ['$reference', '$merchantId', '$environment'] as const
    query = buildSessionView(db, {
      reference: marks[0],
      merchantId: marks[1],
      environment: marks[2] as KeyEnvironment,
    }).compile()
    // The parameters are filled by position, so their order must be the marks' order.
    if (query.parameters.length !== marks.length || marks.some((mark, i) => query?.parameters[i] !== mark)) {
      throw new Error('The session view query binds its parameters in an unexpected order')
    }
    sessionViewQueries.set(db, query)
  }
  return query
}

/** The customer's columns beside a session's (`c` joined to `s`), prefixed `customer__`. */
export const sessionCustomerColumns = [
  'c.id as customer__id',
  'c.merchant_id as customer__merchant_id',
  'c.environment as customer__environment',
  'c.email as customer__email',
  'c.first_name as customer__first_name',
  'c.last_name as customer__last_name',
  'c.phone as customer__phone',
  'c.telegram_id as customer__telegram_id',
  'c.metadata as customer__metadata',
  'c.created_at as customer__created_at',
  'c.updated_at as customer__updated_at',
] as const

type CustomerRow = NonNullable<SessionView['customer']>
type Nullable<T> = { [K in keyof T]: T[K] | null }
type Prefixed<T> = { [K in keyof T as `customer__${K & string}`]: T[K] }

/** A session row with {@link sessionCustomerColumns} split into the row and its customer (null when none). */
export function splitSessionCustomer<T extends Prefixed<Nullable<CustomerRow>>>(
  found: T,
): { row: Omit<T, keyof Prefixed<CustomerRow>>; customer: CustomerRow | null } {
  const {
    customer__id,
    customer__merchant_id,
    customer__environment,
    customer__email,
    customer__first_name,
    customer__last_name,
    customer__phone,
    customer__telegram_id,
    customer__metadata,
    customer__created_at,
    customer__updated_at,
    ...row
  } = found
  const customer =
    customer__id === null ||
    customer__merchant_id === null ||
    customer__environment === null ||
    customer__metadata === null ||
    customer__created_at === null ||
    customer__updated_at === null
      ? null
      : {
          id: customer__id,
          merchant_id: customer__merchant_id,
          environment: customer__environment,
          email: customer__email,
          first_name: customer__first_name,
          last_name: customer__last_name,
          phone: customer__phone,
          telegram_id: customer__telegram_id,
          metadata: customer__metadata,
          created_at: customer__created_at,
          updated_at: customer__updated_at,
        }
  return { row, customer }
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
  const bySession =
    options.transactions && rows.length > 0
      ? await loadSessionTransactions(
          db,
          rows.map((r) => r.id),
        )
      : undefined
  return rows.map((row) => ({
    row,
    customer: row.customer_id ? (byCustomer.get(row.customer_id) ?? null) : null,
    ...(bySession ? { transactions: bySession.get(row.id) ?? [] } : {}),
  }))
}

// The blockchain transactions of these sessions, oldest first, by session id.
async function loadSessionTransactions(
  db: Db,
  sessionIds: string[],
): Promise<Map<string, SessionTransactionRow[]>> {
  const transactions = await db
    .selectFrom('payment_session_transactions')
    .selectAll()
    .where('session_id', 'in', sessionIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  const bySession = new Map<string, SessionTransactionRow[]>()
  for (const transaction of transactions) {
    bySession.set(transaction.session_id, [...(bySession.get(transaction.session_id) ?? []), transaction])
  }
  return bySession
}
