import { selectPage } from '../db/select-page.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { DepositAccountRecord, DepositAccountRow } from './deposit-account.js'

type Scope = { merchantId: string; environment: KeyEnvironment }
type Db = Pick<Deps, 'db'>['db']

/** A page of a merchant's deposit accounts, newest first, and how many match in total. */
export async function listDepositAccounts(
  deps: Pick<Deps, 'db'>,
  input: Scope & { status?: 'active' | undefined; page: number; size: number },
): Promise<{ items: DepositAccountRecord[]; total: number }> {
  let query = deps.db
    .selectFrom('deposit_accounts')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  if (input.status !== undefined) {
    query = query.where('status', '=', input.status)
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'created_at' })
  return { items: await toDepositAccountRecords(deps.db, rows), total }
}

/** One of a merchant's deposit accounts, found by id, by customer or as the parent; else `undefined`. */
export async function findDepositAccount(
  db: Db,
  input: Scope & ({ id: string } | { customerId: string } | { parent: true }),
): Promise<DepositAccountRecord | undefined> {
  let query = db
    .selectFrom('deposit_accounts')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  if ('id' in input) {
    query = query.where('id', '=', input.id)
  } else if ('customerId' in input) {
    query = query.where('customer_id', '=', input.customerId)
  } else {
    query = query.where('is_parent', '=', true)
  }
  const row = await query.executeTakeFirst()
  return row && (await toDepositAccountRecords(db, [row]))[0]
}

/** Attaches each account's customer and identities (two queries for the whole page). */
export async function toDepositAccountRecords(
  db: Db,
  rows: DepositAccountRow[],
): Promise<DepositAccountRecord[]> {
  if (rows.length === 0) {
    return []
  }
  const customerIds = rows.flatMap((r) => (r.customer_id === null ? [] : [r.customer_id]))
  const [customers, identities] = await Promise.all([
    customerIds.length === 0
      ? Promise.resolve([])
      : db.selectFrom('customers').selectAll().where('id', 'in', customerIds).execute(),
    db
      .selectFrom('deposit_account_identities')
      .selectAll()
      .where(
        'deposit_account_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ])
  const customerById = new Map(customers.map((c) => [c.id, c]))
  return rows.map((account) => ({
    account,
    customer: account.customer_id === null ? null : (customerById.get(account.customer_id) ?? null),
    identities: identities.filter((i) => i.deposit_account_id === account.id),
  }))
}
