import { AppError } from '@tollgate/core'
import { type Kysely, sql } from 'kysely'
import type { Database } from '../db/database.js'
import type { TransferPhase } from '../db/schema/ledger.js'
import type { Deps } from '../deps.js'
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

type Delta = AccountCounters
const noDelta = (): Delta => ({ debitsPending: 0n, debitsPosted: 0n, creditsPending: 0n, creditsPosted: 0n })

// TigerBeetle's counter moves: a pending transfer reserves, post moves pending to posted, void releases.
function toDeltas(phase: TransferPhase, amount: bigint): { debit: Delta; credit: Delta } {
  const debit = noDelta()
  const credit = noDelta()
  if (phase === 'single') {
    debit.debitsPosted = amount
    credit.creditsPosted = amount
  } else if (phase === 'pending') {
    debit.debitsPending = amount
    credit.creditsPending = amount
  } else {
    debit.debitsPending = -amount
    credit.creditsPending = -amount
    if (phase === 'post') {
      debit.debitsPosted = amount
      credit.creditsPosted = amount
    }
  }
  return { debit, credit }
}

const add = (a: AccountCounters, b: Delta): AccountCounters => ({
  debitsPending: a.debitsPending + b.debitsPending,
  debitsPosted: a.debitsPosted + b.debitsPosted,
  creditsPending: a.creditsPending + b.creditsPending,
  creditsPosted: a.creditsPosted + b.creditsPosted,
})

/**
 * Applies transfers in order to accounts the transaction holds locked: checks each leg against the
 * locked counters (a flagged account may not go negative: `insufficient_balance`), then writes all
 * counter moves in one conditional UPDATE (which re-checks `available` in SQL), inserts the
 * immutable transfer rows, and writes or resolves the merchant-visible balance transactions.
 */
export async function applyTransfers(
  trx: Kysely<Database>,
  deps: Pick<Deps, 'ids'>,
  input: { transfers: TransferToApply[]; info: LedgerTransactionInfo; now: Date },
): Promise<LedgerTransfer[]> {
  const { transfers, info, now } = input
  const totals = new Map<LockedAccount, Delta>()
  const balanceRows = []
  for (const transfer of transfers) {
    const deltas = toDeltas(transfer.phase, transfer.amount)
    for (const side of ['debit', 'credit'] as const) {
      const account = transfer[side]
      const after = add(account.counters, deltas[side])
      assertWithinFlags(account, after, transfer)
      if (transfer.pendingId === null && account.merchantId !== null) {
        balanceRows.push(toBalanceRow(deps, { transfer, side, before: account.counters, after, info, now }))
      }
      account.counters = after
      totals.set(account, add(totals.get(account) ?? noDelta(), deltas[side]))
    }
  }
  await moveCounters(trx, totals)
  await trx
    .insertInto('ledger_transfers')
    .values(transfers.map((t) => toTransferRow(t, now)))
    .execute()
  if (balanceRows.length > 0) {
    await trx.insertInto('balance_transactions').values(balanceRows).execute()
  }
  const resolved = transfers.flatMap((t) => (t.pendingId === null ? [] : [t.pendingId]))
  if (resolved.length > 0) {
    await trx
      .updateTable('balance_transactions')
      .set({ status: transfers[0]?.phase === 'post' ? 'completed' : 'voided', updated_at: now })
      .where('transfer_id', 'in', resolved)
      .execute()
  }
  return transfers.map((t) => toLedgerTransfer(t, now))
}

function assertWithinFlags(account: LockedAccount, after: AccountCounters, transfer: TransferToApply): void {
  const overdrawn =
    (account.debitsMustNotExceedCredits && after.debitsPosted + after.debitsPending > after.creditsPosted) ||
    (account.creditsMustNotExceedDebits && after.creditsPosted + after.creditsPending > after.debitsPosted)
  if (!overdrawn) {
    return
  }
  const available = formatLedgerAmount(toAccountBalance(account.counters).available, transfer.currency)
  const required = formatLedgerAmount(transfer.amount, transfer.currency)
  throw new AppError('insufficient_balance', {
    message: `Insufficient ${transfer.currency} balance: ${available} available, ${required} required`,
    context: { details: { currency: transfer.currency, available, required } },
  })
}

// One UPDATE for every touched account. The WHERE re-checks, in SQL and on the row Postgres locked,
// that a flagged account keeps `available >= 0` (available >= the net amount leaving it); the CHECK
// constraint is the last line. A row missing from RETURNING means the re-check failed.
async function moveCounters(trx: Kysely<Database>, totals: Map<LockedAccount, Delta>): Promise<void> {
  const values = [...totals].map(
    ([account, d]) =>
      sql`(${account.id}, ${d.debitsPending}::numeric, ${d.debitsPosted}::numeric, ${d.creditsPending}::numeric, ${d.creditsPosted}::numeric, ${account.debitsMustNotExceedCredits}::boolean, ${d.debitsPosted + d.debitsPending - d.creditsPosted}::numeric)`,
  )
  const result = await sql<{
    id: string
    debits_pending: string
    debits_posted: string
    credits_pending: string
    credits_posted: string
  }>`update ledger_accounts
    set debits_pending = debits_pending + v.dpe, debits_posted = debits_posted + v.dpo,
      credits_pending = credits_pending + v.cpe, credits_posted = credits_posted + v.cpo
    from (values ${sql.join(values)}) as v (id, dpe, dpo, cpe, cpo, guarded, outflow)
    where ledger_accounts.id = v.id and (not v.guarded or ${availableSql} >= v.outflow)
    returning ledger_accounts.id, ledger_accounts.debits_pending, ledger_accounts.debits_posted,
      ledger_accounts.credits_pending, ledger_accounts.credits_posted`.execute(trx)
  const byId = new Map(result.rows.map((row) => [row.id, toAccountCounters(row)]))
  for (const account of totals.keys()) {
    const stored = byId.get(account.id)
    if (!stored) {
      throw new AppError('insufficient_balance', {
        message: `Insufficient ${account.currency} balance`,
        context: { details: { currency: account.currency } },
      })
    }
    // The rows are locked, so the database must agree with the counters computed here.
    if (JSON.stringify(toStrings(stored)) !== JSON.stringify(toStrings(account.counters))) {
      throw new AppError('internal_error', { message: `ledger account ${account.id} changed while locked` })
    }
  }
}

const toStrings = (c: AccountCounters) =>
  [c.debitsPending, c.debitsPosted, c.creditsPending, c.creditsPosted].map(String)

function toTransferRow(transfer: TransferToApply, now: Date) {
  return {
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
  }
}

function toLedgerTransfer(transfer: TransferToApply, now: Date): LedgerTransfer {
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
    createdAt: now,
  }
}

function toBalanceRow(
  deps: Pick<Deps, 'ids'>,
  input: {
    transfer: TransferToApply
    side: 'debit' | 'credit'
    before: AccountCounters
    after: AccountCounters
    info: LedgerTransactionInfo
    now: Date
  },
) {
  const { transfer, side, info } = input
  const before = toAccountBalance(input.before)
  const after = toAccountBalance(input.after)
  return {
    id: deps.ids.create('btx'),
    merchant_id: transfer[side].merchantId ?? '',
    environment: transfer.environment,
    account_id: transfer[side].id,
    transaction_id: transfer.transactionId,
    transfer_id: transfer.id,
    source: info.source,
    source_id: info.sourceId ?? null,
    source_reference: info.sourceReference ?? null,
    reference: info.reference ?? null,
    description: info.description ?? null,
    tx_hash: info.txHash ?? null,
    direction: side,
    status: transfer.phase === 'pending' ? ('pending' as const) : ('completed' as const),
    amount: transfer.amount,
    currency: transfer.currency,
    before_available: before.available,
    before_pending: before.pending,
    after_available: after.available,
    after_pending: after.pending,
    created_at: input.now,
    updated_at: input.now,
  }
}
