import type { Deps } from '../deps.js'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import { getAccountBalance } from '../ledger/get-balances.js'
import { getLedgerTransaction } from '../ledger/get-ledger-transaction.js'
import { isLedgerCurrency, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { LedgerTransaction } from '../ledger/ledger-types.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { postPendingTransaction, voidPendingTransaction } from '../ledger/resolve-pending.js'
import type { Db } from '../rails/types.js'
import { computeSettlement, type SessionRow } from './session-settlement.js'

// A session's fees are taken when it closes, but the merchant may spend a partial payment's credit
// before that. So each confirmation that leaves the session open holds its share of the fees as a
// pending debit (merchant → platform:fees), covered by the credit posted in the same transaction;
// the close posts the holds and only the rest, which the closing credit covers. docs/sessions.md.

type FeeDeps = Pick<Deps, 'ids' | 'clock'>

const holdKey = (transferId: string) => `session-tx:${transferId}:fee-hold`

type FeePosition = {
  currency: LedgerCurrency
  gross: bigint
  /** The fees owed on what was confirmed: the locked fees, never more than the merchant was credited. */
  due: bigint
  holds: LedgerTransaction[]
  held: bigint
}

async function getFeePosition(db: Db, row: SessionRow): Promise<FeePosition | null> {
  const amounts = computeSettlement(row, BigInt(row.amount_confirmed))
  if (!amounts || !isLedgerCurrency(amounts.currency)) {
    return null
  }
  const confirmed = await db
    .selectFrom('payment_session_transactions')
    .select(['incoming_transfer_id', 'ledger_amount'])
    .where('session_id', '=', row.id)
    .where('attributed', '=', true)
    .where('status', '=', 'confirmed')
    .execute()
  const credited = confirmed.reduce((sum, t) => sum + BigInt(t.ledger_amount ?? 0), 0n)
  const fees = amounts.processingFee + amounts.gasFee
  const holds: LedgerTransaction[] = []
  for (const transaction of confirmed) {
    const hold = await getLedgerTransaction(
      { db },
      { environment: row.environment, idempotencyKey: holdKey(transaction.incoming_transfer_id) },
    )
    if (hold) {
      holds.push(hold)
    }
  }
  // Transfers are immutable: a hold that was posted or voided has a resolving transfer pointing at it.
  const holdTransferIds = holds.flatMap((hold) => hold.transfers.map((t) => t.id))
  const resolved = new Set(
    holdTransferIds.length === 0
      ? []
      : (
          await db
            .selectFrom('ledger_transfers')
            .select('pending_id')
            .where('pending_id', 'in', holdTransferIds)
            .execute()
        ).map((t) => t.pending_id),
  )
  const open = holds.filter((hold) => hold.transfers.every((t) => !resolved.has(t.id)))
  return {
    currency: amounts.currency,
    gross: amounts.gross,
    due: fees < credited ? fees : credited,
    holds: open,
    held: open.reduce((sum, hold) => sum + (hold.transfers[0]?.amount ?? 0n), 0n),
  }
}

const feeFields = (row: SessionRow, description: string) => ({
  source: 'fee' as const,
  sourceId: row.id,
  sourceReference: row.reference,
  reference: row.reference,
  description: `${description} ${row.reference}`,
})

/**
 * After a confirmation that left the open session `row` open: holds the fees owed on what is now
 * confirmed and not held yet, as a pending debit keyed by the transfer (at most its own credit).
 */
export async function holdSessionFees(
  db: Db,
  deps: FeeDeps,
  input: { row: SessionRow; transferId: string },
): Promise<void> {
  const position = await getFeePosition(db, input.row)
  const amount = position ? position.due - position.held : 0n
  if (!position || amount <= 0n) {
    return
  }
  await postTransaction(
    { db, ids: deps.ids, clock: deps.clock },
    {
      environment: input.row.environment,
      idempotencyKey: holdKey(input.transferId),
      legs: [
        {
          debit: merchantAccount(input.row.merchant_id),
          credit: 'platform:fees',
          amount,
          currency: position.currency,
        },
      ],
      pending: true,
      ...feeFields(input.row, 'Fees held for payment session'),
    },
  )
}

/**
 * Takes the fees of a session that closed with funds: posts its holds, then the rest single-phase
 * (`session:{id}:fees`). The rest is what the closing confirmation added, so its credit covers it;
 * only after a posted credit was reversed (a reorg deeper than the confirmation count) can the balance
 * fall short, and then the fee is cut to what is available and the shortfall logged.
 */
export async function takeSessionFees(
  db: Db,
  deps: FeeDeps & Pick<Deps, 'logger'>,
  row: SessionRow,
): Promise<{ gross: bigint; fees: bigint } | null> {
  const position = await getFeePosition(db, row)
  if (!position) {
    return null
  }
  const ledger = { db, ids: deps.ids, clock: deps.clock }
  for (const hold of position.holds) {
    await postPendingTransaction(ledger, { environment: row.environment, transactionId: hold.id })
  }
  let rest = position.due - position.held
  if (rest > 0n) {
    const { available } = await getAccountBalance(
      { db },
      { environment: row.environment, code: merchantAccount(row.merchant_id), currency: position.currency },
    )
    if (available < rest) {
      deps.logger.error(
        { sessionId: row.id, owed: String(rest), available: String(available) },
        'session fees exceed the available balance; the shortfall is not collected',
      )
      rest = available > 0n ? available : 0n
    }
  }
  if (rest > 0n) {
    await postTransaction(ledger, {
      environment: row.environment,
      idempotencyKey: `session:${row.id}:fees`,
      legs: [
        {
          debit: merchantAccount(row.merchant_id),
          credit: 'platform:fees',
          amount: rest,
          currency: position.currency,
        },
      ],
      ...feeFields(row, 'Fees of payment session'),
    })
  }
  return { gross: position.gross, fees: position.held + rest }
}

/** Releases the fee holds of a session that closed without taking fees (failed), or of one reverted transfer. */
export async function releaseSessionFees(
  db: Db,
  deps: FeeDeps,
  input: { row: SessionRow; transferId?: string },
): Promise<void> {
  const position = await getFeePosition(db, input.row)
  const ledger = { db, ids: deps.ids, clock: deps.clock }
  for (const hold of position?.holds ?? []) {
    if (input.transferId === undefined || hold.idempotencyKey === holdKey(input.transferId)) {
      await voidPendingTransaction(ledger, { environment: input.row.environment, transactionId: hold.id })
    }
  }
}
