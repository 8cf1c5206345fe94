import { AppError } from '@tollgate/core'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import { emitEvent } from '../events/emit-event.js'
import type { EventType } from '../events/event-types.js'
import { resolvePendingTransactionAtOnce } from '../ledger/resolve-pending-at-once.js'
import type { Db } from '../rails/types.js'
import { type PayoutRow, toPayoutResponse } from './payout.js'

/** What a provider said about a payout: still processing, paid, or failed (with the reason). */
export type PayoutOutcome =
  | { status: 'processing'; txHash?: string | null | undefined }
  | { status: 'success'; txHash?: string | null | undefined }
  | { status: 'failed'; failureReason: string; txHash?: string | null | undefined }

/**
 * Records a provider's answer about a payout in `db` (the caller's transaction when a rail delivers a
 * callback): success posts the ledger reservation, failure voids it and gives back the daily limit;
 * each emits its event. A payout already final is left alone, so repeated answers are harmless.
 * Returns the payout afterwards, or undefined for an id that is not a payout (or, with `onlyFrom`,
 * a payout that was not in that state: nothing is changed then).
 */
export async function settlePayout(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock' | 'settings'>,
  input: { payoutId: string; outcome: PayoutOutcome; onlyFrom?: 'pending' },
): Promise<PayoutRow | undefined> {
  const { outcome } = input
  if (outcome.status !== 'processing' || input.onlyFrom === 'pending') {
    return inTransaction(db, (trx) => changeStatus(trx, deps, { ...input, outcome }))
  }
  return inTransaction(db, async (trx) => {
    const payout = await trx
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', input.payoutId)
      .forUpdate()
      .executeTakeFirst()
    if (input.onlyFrom !== undefined && payout?.status !== input.onlyFrom) {
      return undefined
    }
    if (!payout || payout.status === 'success' || payout.status === 'failed') {
      return payout
    }
    const txHash = outcome.txHash ?? payout.tx_hash
    if (payout.status === 'processing' && txHash === payout.tx_hash) {
      return payout
    }
    const updated = await trx
      .updateTable('payouts')
      .set({ status: 'processing', tx_hash: txHash, updated_at: deps.clock.now() })
      .where('id', '=', payout.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    if (payout.status === 'pending') {
      await emitPayoutEvent(trx, deps, updated, 'payout.processing')
    }
    return updated
  })
}

// The transitions whose previous state is known from the condition: pending to processing (the
// submission), and any non-final state to success or failed. One conditional UPDATE takes the row's
// lock and changes it (instead of a locking SELECT and an UPDATE); when it matches nothing, the
// payout is missing, final already, or (with onlyFrom) not in that state, and is left alone.
async function changeStatus(
  trx: Db,
  deps: Pick<Deps, 'ids' | 'clock' | 'settings'>,
  input: { payoutId: string; outcome: PayoutOutcome; onlyFrom?: 'pending' },
): Promise<PayoutRow | undefined> {
  const { outcome } = input
  const now = deps.clock.now()
  const updated = await trx
    .updateTable('payouts')
    .set((eb) => ({
      status: outcome.status,
      tx_hash:
        outcome.txHash === undefined || outcome.txHash === null ? eb.ref('tx_hash') : eb.val(outcome.txHash),
      updated_at: now,
      ...(outcome.status === 'processing'
        ? {}
        : {
            failure_reason: outcome.status === 'failed' ? outcome.failureReason : null,
            completed_at: now,
          }),
    }))
    .where('id', '=', input.payoutId)
    .$call((qb) =>
      input.onlyFrom === undefined
        ? qb.where('status', 'not in', ['success', 'failed'])
        : qb.where('status', '=', input.onlyFrom),
    )
    .returningAll()
    .executeTakeFirst()
  if (!updated) {
    if (input.onlyFrom !== undefined) {
      return undefined
    }
    return trx.selectFrom('payouts').selectAll().where('id', '=', input.payoutId).executeTakeFirst()
  }
  const payout = updated
  if (outcome.status === 'processing') {
    await emitPayoutEvent(trx, deps, updated, 'payout.processing')
    return updated
  }
  const ledgerTransactionId = payout.ledger_transaction_id
  if (ledgerTransactionId === null) {
    throw new AppError('internal_error', { message: `payout ${payout.id} has no ledger reservation` })
  }
  await emitPayoutEvent(trx, deps, updated, outcome.status === 'success' ? 'payout.success' : 'payout.failed')
  // The merchant's daily-usage row and ledger account are the rows every payout of the merchant
  // locks: touched last (in the order createPayout locks them: usage, then accounts), and the ledger
  // in one statement, so they are held only for that round trip and the commit right after.
  const ledger = { db: trx, ids: deps.ids, clock: deps.clock }
  const target = { environment: payout.environment, transactionId: ledgerTransactionId }
  if (outcome.status === 'failed') {
    await trx
      .updateTable('payout_daily_usage')
      .set((eb) => ({ used: eb('used', '-', payout.usd_equivalent) }))
      .where('merchant_id', '=', payout.merchant_id)
      .where('environment', '=', payout.environment)
      .where('day', '=', payout.usage_day)
      .execute()
  }
  await resolvePendingTransactionAtOnce(ledger, target, outcome.status === 'success' ? 'post' : 'void')
  return updated
}

function emitPayoutEvent(
  trx: Db,
  deps: Pick<Deps, 'ids' | 'clock' | 'settings'>,
  payout: PayoutRow,
  type: EventType,
): Promise<string | null> {
  return emitEvent(trx, deps, {
    merchantId: payout.merchant_id,
    environment: payout.environment,
    type,
    format: payout.response_format,
    data: { payout: toPayoutResponse(payout, payout.response_format) },
    webhookUrl: payout.webhook_url,
  })
}
