import type { Updateable } from 'kysely'
import type { PaymentSessionsTable, SessionPaymentStatus } from '../db/schema/payment-sessions.js'
import type { Deps } from '../deps.js'
import { emitEvent } from '../events/emit-event.js'
import type { EventType } from '../events/event-types.js'
import type { Db } from '../rails/types.js'
import { toSessionViews } from './load-payment-session.js'
import { releaseSessionFees, takeSessionFees } from './session-fees.js'
import type { SessionRow } from './session-settlement.js'
import { toSessionResponse } from './to-session-response.js'

/** What made a session be looked at again: a transfer's new status, or its expiry time. */
export type SessionTrigger = 'seen' | 'confirmed' | 'reverted' | 'expiry' | 'failed'

type SessionDeps = Pick<Deps, 'ids' | 'clock' | 'rails' | 'settings' | 'logger'>

/**
 * Recomputes a locked session from its transactions and moves it along the state machine of
 * docs/sessions.md: amounts, `payment.status`, `state`, the settlement fee posting when it closes
 * with funds, and the event of the move, all in `db` (the caller's transaction).
 */
export async function reconcileSession(
  db: Db,
  deps: SessionDeps,
  input: { row: SessionRow; trigger: SessionTrigger },
): Promise<SessionRow> {
  const { row } = input
  const now = deps.clock.now()
  const totals = await getTotals(db, row.id)
  const changes: Updateable<PaymentSessionsTable> = {
    amount_seen: totals.seen,
    amount_confirmed: totals.confirmed,
    tx_hash: totals.lastTxHash ?? row.tx_hash,
    updated_at: now,
  }
  let event: EventType | null = null
  let status: SessionPaymentStatus = row.payment_status
  if (row.state === 'open') {
    const wanted = row.crypto_amount === null ? null : BigInt(row.crypto_amount)
    const due = now >= row.expires_at
    if (input.trigger === 'failed') {
      status = 'failed'
    } else if (wanted !== null && totals.confirmed >= wanted) {
      status = 'completed'
    } else if (due && !totals.pending) {
      status = totals.confirmed === 0n ? 'expired' : row.is_underpayment_accepted ? 'completed' : 'underpaid'
    } else if (totals.pending) {
      status = 'confirming'
    } else {
      status = totals.confirmed > 0n ? 'partial' : 'pending'
    }
    const closes =
      status === 'completed' || status === 'underpaid' || status === 'expired' || status === 'failed'
    if (closes) {
      Object.assign(changes, { state: 'closed', closed_at: now })
      event = `payment.${status}` as EventType
      if (status === 'completed') {
        changes.completed_at = now
      }
    } else if (status === 'partial' && input.trigger === 'confirmed') {
      event = 'payment.partial'
    }
    changes.payment_status = status
  }
  let updated = await db
    .updateTable('payment_sessions')
    .set(changes)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  if (row.state === 'open' && updated.state === 'closed' && totals.confirmed > 0n) {
    if (status === 'failed') {
      await releaseSessionFees(db, deps, { row: updated })
    } else {
      updated = await settleSession(db, deps, updated)
    }
  }
  if (event) {
    await emitSessionEvent(db, deps, updated, event)
  }
  return updated
}

/** Emits a session event with the session as the key that created it sees it (legacy keys: `session.*`). */
export async function emitSessionEvent(
  db: Db,
  deps: SessionDeps,
  row: SessionRow,
  type: EventType,
): Promise<void> {
  const [view] = await toSessionViews(db, [row])
  // Before 2.0.0 a terminal underpayment was announced as a partial payment; legacy keys keep that.
  const legacyType =
    row.response_format === 'legacy' && type === 'payment.underpaid' ? 'payment.partial' : type
  await emitEvent(db, deps, {
    merchantId: row.merchant_id,
    environment: row.environment,
    type: legacyType,
    format: row.response_format,
    data: { session: view ? toSessionResponse(deps, view, row.response_format) : { id: row.id } },
    webhookUrl: row.webhook_url,
  })
}

// The fees of a closed session leave the merchant's balance for platform:fees (session-fees.ts).
async function settleSession(db: Db, deps: SessionDeps, row: SessionRow): Promise<SessionRow> {
  const taken = await takeSessionFees(db, deps, row)
  if (!taken) {
    return row
  }
  return db
    .updateTable('payment_sessions')
    .set({ settled_gross: taken.gross, settled_fees: taken.fees, settled_at: deps.clock.now() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

async function getTotals(db: Db, sessionId: string) {
  const rows = await db
    .selectFrom('payment_session_transactions')
    .select(['amount', 'status', 'tx_hash'])
    .where('session_id', '=', sessionId)
    .where('attributed', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  let seen = 0n
  let confirmed = 0n
  let pending = false
  let lastTxHash: string | null = null
  for (const transaction of rows) {
    if (transaction.status === 'reverted') {
      continue
    }
    seen += BigInt(transaction.amount)
    lastTxHash = transaction.tx_hash
    if (transaction.status === 'confirmed') {
      confirmed += BigInt(transaction.amount)
    } else {
      pending = true
    }
  }
  return { seen, confirmed, pending, lastTxHash }
}
