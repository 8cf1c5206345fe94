import type { CustomerRow } from '../customers/customer.js'
import { selectPage } from '../db/select-page.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { DepositRow } from './deposit.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of {@link listDeposits} (spec GET /deposits); dates are inclusive bounds on `createdAt`. */
export type DepositFilters = {
  customerId?: string | undefined
  depositAccountId?: string | undefined
  type?: 'crypto' | 'fiat' | undefined
  status?: 'pending' | 'completed' | 'failed' | undefined
  chain?: string | undefined
  currency?: string | undefined
  txHash?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/** A deposit with its holder (null for the parent account). */
export type DepositRecord = { deposit: DepositRow; customer: CustomerRow | null }

/** A page of a merchant's deposits, newest first, and how many match in total. */
export async function listDeposits(
  deps: Pick<Deps, 'db'>,
  input: Scope & DepositFilters & { page: number; size: number },
): Promise<{ items: DepositRecord[]; total: number }> {
  let query = deps.db
    .selectFrom('deposits')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  const exact = [
    ['customer_id', input.customerId],
    ['deposit_account_id', input.depositAccountId],
    ['type', input.type],
    ['status', input.status],
    ['chain', input.chain],
    ['currency', input.currency],
    ['tx_hash', input.txHash],
  ] as const
  for (const [column, value] of exact) {
    if (value !== undefined) {
      query = query.where(column, '=', value)
    }
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'seq' })
  return { items: await withCustomers(deps, rows), total }
}

/** One of a merchant's deposits with its holder; `undefined` when absent or another merchant's. */
export async function getDeposit(
  deps: Pick<Deps, 'db'>,
  input: Scope & { id: string },
): Promise<DepositRecord | undefined> {
  const row = await deps.db
    .selectFrom('deposits')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('id', '=', input.id)
    .executeTakeFirst()
  return row && (await withCustomers(deps, [row]))[0]
}

async function withCustomers(deps: Pick<Deps, 'db'>, rows: DepositRow[]): Promise<DepositRecord[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.customer_id === null ? [] : [r.customer_id])))]
  const customers =
    ids.length === 0 ? [] : await deps.db.selectFrom('customers').selectAll().where('id', 'in', ids).execute()
  const byId = new Map(customers.map((c) => [c.id, c]))
  return rows.map((deposit) => ({
    deposit,
    customer: deposit.customer_id === null ? null : (byId.get(deposit.customer_id) ?? null),
  }))
}
