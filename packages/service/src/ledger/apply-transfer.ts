import { type Kysely, sql } from 'kysely'
import type { Database } from '../db/database.js'
import type { TransferPhase } from '../db/schema/ledger.js'
import type { Deps } from '../deps.js'
import { ServiceError } from '../errors.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type AccountCounters, availableSql, toAccountBalance, toAccountCounters } from './account-balance.js'
import { formatLedgerAmount, type LedgerCurrency } from './ledger-currencies.js'
import type { LedgerTransactionInfo, LedgerTransfer } from './ledger-types.js'
import type { LockedAccount } from './lock-accounts.js'

/** A transfer about to be applied to two accounts the current transaction holds locked. */
export type TransferToApply = {
  id: string
  transactionId: string
  leg: number
  environment: KeyEnvironment
  currency: LedgerCurrency
  debit: LockedAccount
  credit: LockedAccount
  amount: bigint
  phase: TransferPhase
  pendingId: string | null
  expiresAt: Date | null
}

type Delta = Partial<AccountCounters>

const columns = {
  debitsPending: 'debits_pending',
  debitsPosted: 'debits_posted',
  creditsPending: 'credits_pending',
  creditsPosted: 'credits_posted',
} as const

// TigerBeetle's counter moves: a pending transfer reserves, post moves pending to posted, void releases.
function toDeltas(phase: TransferPhase, amount: bigint): { debit: Delta; credit: Delta } {
  switch (phase) {
    case 'single':
      return { debit: { debitsPosted: amount }, credit: { creditsPosted: amount } }
    case 'pending':
      return { debit: { debitsPending: amount }, credit: { creditsPending: amount } }
    case 'post':
      return {
        debit: { debitsPending: -amount, debitsPosted: amount },
        credit: { creditsPending: -amount, creditsPosted: amount },
      }
    default:
      return { debit: { debitsPending: -amount }, credit: { creditsPending: -amount } }
  }
}

/**
 * Applies one transfer: moves the counters of both accounts (a flagged account only when the
 * conditional UPDATE still finds enough balance), inserts the immutable transfer row, and writes
 * or resolves the merchant-visible balance transactions. Updates the locked accounts' counters.
 */
export async function applyTransfer(
  trx: Kysely<Database>,
  deps: Pick<Deps, 'ids'>,
  input: { transfer: TransferToApply; info: LedgerTransactionInfo; now: Date },
): Promise<LedgerTransfer> {
  const { transfer, info, now } = input
  const deltas = toDeltas(transfer.phase, transfer.amount)
  const increases = transfer.phase === 'single' || transfer.phase === 'pending'
  const before = { debit: transfer.debit.counters, credit: transfer.credit.counters }
  transfer.debit.counters = await moveCounters(trx, transfer, 'debit', deltas.debit, increases)
  transfer.credit.counters = await moveCounters(trx, transfer, 'credit', deltas.credit, increases)
  const row = await trx
    .insertInto('ledger_transfers')
    .values({
      id: transfer.id,
      transaction_id: transfer.transactionId,
      leg: transfer.leg,
      environment: transfer.environment,
      currency: transfer.currency,
      debit_account_id: transfer.debit.id,
      credit_account_id: transfer.credit.id,
      amount: transfer.amount,
      phase: transfer.phase,
      pending_id: transfer.pendingId,
      expires_at: transfer.expiresAt,
      created_at: now,
    })
    .returning('created_at')
    .executeTakeFirstOrThrow()
  if (transfer.pendingId === null) {
    for (const side of ['debit', 'credit'] as const) {
      await insertBalanceTransaction(trx, deps, { transfer, side, before: before[side], info, now })
    }
  } else {
    await trx
      .updateTable('balance_transactions')
      .set({ status: transfer.phase === 'post' ? 'completed' : 'voided', updated_at: now })
      .where('transfer_id', '=', transfer.pendingId)
      .execute()
  }
  return {
    id: transfer.id,
    transactionId: transfer.transactionId,
    leg: transfer.leg,
    environment: transfer.environment,
    currency: transfer.currency,
    debitAccountId: transfer.debit.id,
    creditAccountId: transfer.credit.id,
    amount: transfer.amount,
    phase: transfer.phase,
    pendingId: transfer.pendingId,
    expiresAt: transfer.expiresAt,
    createdAt: row.created_at,
  }
}

async function moveCounters(
  trx: Kysely<Database>,
  transfer: TransferToApply,
  side: 'debit' | 'credit',
  delta: Delta,
  increases: boolean,
): Promise<AccountCounters> {
  const account = transfer[side]
  const set: Partial<Record<(typeof columns)[keyof Delta], ReturnType<typeof sql<string>>>> = {}
  for (const [key, value] of Object.entries(delta) as [keyof Delta, bigint][]) {
    set[columns[key]] = sql<string>`${sql.ref(columns[key])} + ${value}`
  }
  let query = trx.updateTable('ledger_accounts').set(set).where('id', '=', account.id)
  // The reserving UPDATE: Postgres re-evaluates this condition on the row version it finally locks.
  if (increases && side === 'debit' && account.debitsMustNotExceedCredits) {
    query = query.where(availableSql, '>=', sql<string>`${transfer.amount}`)
  }
  if (increases && side === 'credit' && account.creditsMustNotExceedDebits) {
    query = query.where(
      sql<string>`debits_posted - credits_posted - credits_pending`,
      '>=',
      sql<string>`${transfer.amount}`,
    )
  }
  const row = await query
    .returning(['debits_pending', 'debits_posted', 'credits_pending', 'credits_posted'])
    .executeTakeFirst()
  if (!row) {
    throw toInsufficientBalance(account, transfer)
  }
  return toAccountCounters(row)
}

function toInsufficientBalance(account: LockedAccount, transfer: TransferToApply): ServiceError {
  const available = formatLedgerAmount(toAccountBalance(account.counters).available, transfer.currency)
  const required = formatLedgerAmount(transfer.amount, transfer.currency)
  return new ServiceError(
    'insufficient_balance',
    `Insufficient ${transfer.currency} balance: ${available} available, ${required} required`,
    { details: { currency: transfer.currency, available, required } },
  )
}

async function insertBalanceTransaction(
  trx: Kysely<Database>,
  deps: Pick<Deps, 'ids'>,
  input: {
    transfer: TransferToApply
    side: 'debit' | 'credit'
    before: AccountCounters
    info: LedgerTransactionInfo
    now: Date
  },
): Promise<void> {
  const { transfer, side, info } = input
  const account = transfer[side]
  if (account.merchantId === null) {
    return
  }
  const before = toAccountBalance(input.before)
  const after = toAccountBalance(account.counters)
  await trx
    .insertInto('balance_transactions')
    .values({
      id: deps.ids.create('btx'),
      merchant_id: account.merchantId,
      environment: transfer.environment,
      account_id: account.id,
      transaction_id: transfer.transactionId,
      transfer_id: transfer.id,
      source: info.source,
      source_id: info.sourceId ?? null,
      source_reference: info.sourceReference ?? null,
      reference: info.reference ?? null,
      description: info.description ?? null,
      tx_hash: info.txHash ?? null,
      direction: side,
      status: transfer.phase === 'pending' ? 'pending' : 'completed',
      amount: transfer.amount,
      currency: transfer.currency,
      before_available: before.available,
      before_pending: before.pending,
      after_available: after.available,
      after_pending: after.pending,
      created_at: input.now,
      updated_at: input.now,
    })
    .execute()
}
