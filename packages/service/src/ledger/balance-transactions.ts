import type { Selectable } from 'kysely'
import type { BalanceTransactionsTable } from '../db/schema/ledger.js'
import { selectPage } from '../db/select-page.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type AccountBalance, toBalanceSnapshot } from './account-balance.js'
import type { LedgerCurrency } from './ledger-currencies.js'
import type { LedgerSource } from './ledger-types.js'

/** A balance transaction: the merchant-visible view of one transfer on a merchant account (minor units). */
export type BalanceTransactionRecord = {
  id: string
  transactionId: string
  transferId: string
  source: LedgerSource
  sourceId: string | null
  sourceReference: string | null
  reference: string | null
  description: string | null
  txHash: string | null
  direction: 'credit' | 'debit'
  status: 'pending' | 'completed' | 'voided'
  amount: bigint
  currency: LedgerCurrency
  /** The account's balance right before and right after the transfer was recorded. */
  balanceBefore: AccountBalance
  balanceAfter: AccountBalance
  createdAt: Date
  updatedAt: Date
}

/** Filters of {@link listBalanceTransactions}; dates are inclusive bounds on `createdAt`. */
export type BalanceTransactionFilters = {
  source?: LedgerSource | undefined
  status?: BalanceTransactionRecord['status'] | undefined
  direction?: BalanceTransactionRecord['direction'] | undefined
  currency?: string | undefined
  txHash?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

type Scope = { merchantId: string; environment: KeyEnvironment }

/** A page of a merchant's balance transactions, newest first, and how many match in total. */
export async function listBalanceTransactions(
  deps: Pick<Deps, 'db'>,
  input: Scope & BalanceTransactionFilters & { page: number; size: number },
): Promise<{ items: BalanceTransactionRecord[]; total: number }> {
  let query = deps.db
    .selectFrom('balance_transactions')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  const exact = [
    ['source', input.source],
    ['status', input.status],
    ['direction', input.direction],
    ['currency', input.currency],
    ['tx_hash', input.txHash],
  ] as const
  for (const [column, value] of exact) {
    if (value !== undefined) {
      query = query.where(column, '=', value)
    }
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'seq' })
  return { items: rows.map(toBalanceTransactionRecord), total }
}

/** One of a merchant's balance transactions; `undefined` when absent or another merchant's. */
export async function getBalanceTransaction(
  deps: Pick<Deps, 'db'>,
  input: Scope & { id: string },
): Promise<BalanceTransactionRecord | undefined> {
  const row = await deps.db
    .selectFrom('balance_transactions')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('id', '=', input.id)
    .executeTakeFirst()
  return row && toBalanceTransactionRecord(row)
}

function toBalanceTransactionRecord(row: Selectable<BalanceTransactionsTable>): BalanceTransactionRecord {
  const snapshot = (available: string, pending: string) =>
    toBalanceSnapshot(BigInt(available), BigInt(pending))
  return {
    id: row.id,
    transactionId: row.transaction_id,
    transferId: row.transfer_id,
    source: row.source as LedgerSource,
    sourceId: row.source_id,
    sourceReference: row.source_reference,
    reference: row.reference,
    description: row.description,
    txHash: row.tx_hash,
    direction: row.direction,
    status: row.status,
    amount: BigInt(row.amount),
    currency: row.currency as LedgerCurrency,
    balanceBefore: snapshot(row.before_available, row.before_pending),
    balanceAfter: snapshot(row.after_available, row.after_pending),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}
