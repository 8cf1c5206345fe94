import type { Deps } from '../deps.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { postPendingTransaction, voidPendingTransaction } from '../ledger/resolve-pending.js'
import type { Db, IncomingTransfer, IncomingTransferHandler } from '../rails/types.js'
import { emitSessionEvent, reconcileSession } from './reconcile-session.js'
import { holdSessionFees, releaseSessionFees } from './session-fees.js'
import { toReversalLegs, toSessionCreditLegs } from './session-ledger.js'
import type { SessionRow } from './session-settlement.js'
import type { SessionTransactionRow } from './to-session-response.js'

type HandlerDeps = Pick<Deps, 'ids' | 'clock' | 'rails' | 'settings' | 'logger'>

const lateReason = 'received after the session closed; held in suspense for the merchant to resolve'
const amlReason = 'AML screening of the sender failed; held in suspense'
const reorgReason = 'removed from the chain by a reorganisation'

/**
 * The payment sessions' consumer of incoming transfers (subscribe it with purpose `session`): records
 * the transfer as a blockchain transaction of its session, moves the ledger (pending credit when seen,
 * posted when confirmed, voided or reversed on a reorg) and the session's state machine. Runs in the
 * watcher's transaction; idempotent under repeated and concurrent reports (the session row is locked).
 */
export function createSessionTransferHandler(deps: HandlerDeps): IncomingTransferHandler {
  return async (db, transfer) => {
    if (transfer.address.purpose !== 'session') {
      return
    }
    const session = await db
      .selectFrom('payment_sessions')
      .selectAll()
      .where('id', '=', transfer.address.ownerId)
      .where('environment', '=', transfer.environment)
      .forUpdate()
      .executeTakeFirst()
    if (!session) {
      deps.logger.warn(
        { transferId: transfer.id, ownerId: transfer.address.ownerId },
        'transfer to an unknown session',
      )
      return
    }
    const existing = await db
      .selectFrom('payment_session_transactions')
      .selectAll()
      .where('incoming_transfer_id', '=', transfer.id)
      .executeTakeFirst()
    if (transfer.status === 'reverted') {
      await revert(db, deps, session, existing, transfer)
      return
    }
    const recorded = existing ?? (await recordSeen(db, deps, session, transfer))
    if (transfer.status === 'confirmed') {
      await confirm(db, deps, recorded, transfer)
    } else if (recorded.confirmations !== transfer.confirmations && recorded.status === 'pending') {
      await touch(db, deps, recorded.id, { confirmations: transfer.confirmations })
    }
  }
}

async function recordSeen(
  db: Db,
  deps: HandlerDeps,
  session: SessionRow,
  transfer: IncomingTransfer,
): Promise<SessionTransactionRow> {
  const amlCheck = transfer.fromAddress
    ? await deps.rails.screening.screen({
        chain: transfer.chain,
        address: transfer.fromAddress,
        txHash: transfer.txHash,
      })
    : 'pending'
  const open = session.state === 'open' && transfer.seenAt < session.expires_at
  const attributed = open && amlCheck !== 'failed'
  const id = deps.ids.create('btx')
  const credit = toSessionCreditLegs(deps, session, {
    amount: transfer.amount,
    to: attributed ? 'merchant' : 'suspense',
  })
  let ledgerTransactionId: string | null = null
  if (credit.legs.length > 0) {
    const posted = await postTransaction(
      { db, ids: deps.ids, clock: deps.clock },
      {
        environment: session.environment,
        idempotencyKey: `session-tx:${transfer.id}:credit`,
        legs: credit.legs,
        pending: true,
        source: 'payment',
        sourceId: session.id,
        sourceReference: session.reference,
        reference: session.reference,
        description: attributed
          ? `Payment session ${session.reference}`
          : `Unmatched funds for ${session.reference}`,
        txHash: transfer.txHash,
      },
    )
    ledgerTransactionId = posted.id
  }
  const now = deps.clock.now()
  const row = await db
    .insertInto('payment_session_transactions')
    .values({
      id,
      session_id: session.id,
      merchant_id: session.merchant_id,
      environment: session.environment,
      incoming_transfer_id: transfer.id,
      chain: transfer.chain,
      network: transfer.network,
      asset: transfer.asset,
      tx_hash: transfer.txHash,
      log_index: transfer.logIndex,
      from_address: transfer.fromAddress,
      to_address: transfer.toAddress,
      amount: transfer.amount,
      decimals: transfer.decimals,
      status: 'pending',
      confirmations: transfer.confirmations,
      aml_check: amlCheck,
      failure_reason: attributed ? null : open ? amlReason : lateReason,
      attributed,
      ledger_transaction_id: ledgerTransactionId,
      ledger_currency: credit.currency,
      ledger_amount: credit.amount,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  if (attributed) {
    await reconcileSession(db, deps, { row: session, trigger: 'seen' })
  } else if (open) {
    // Screening refused the sender: the session fails and the funds wait in suspense.
    await reconcileSession(db, deps, { row: session, trigger: 'failed' })
  }
  return row
}

async function confirm(
  db: Db,
  deps: HandlerDeps,
  row: SessionTransactionRow,
  transfer: IncomingTransfer,
): Promise<void> {
  if (row.status !== 'pending') {
    return
  }
  if (row.ledger_transaction_id) {
    await postPendingTransaction(
      { db, ids: deps.ids, clock: deps.clock },
      { environment: row.environment, transactionId: row.ledger_transaction_id },
    )
  }
  await touch(db, deps, row.id, {
    status: 'confirmed',
    confirmations: transfer.confirmations,
    confirmed_at: transfer.confirmedAt ?? deps.clock.now(),
  })
  const session = await lockSession(db, row.session_id)
  if (row.attributed) {
    const reconciled = await reconcileSession(db, deps, { row: session, trigger: 'confirmed' })
    if (reconciled.state === 'open') {
      await holdSessionFees(db, deps, { row: reconciled, transferId: transfer.id })
    }
  } else if (row.failure_reason === lateReason) {
    await emitSessionEvent(db, deps, session, 'payment.received_after_expiry')
  }
}

async function revert(
  db: Db,
  deps: HandlerDeps,
  session: SessionRow,
  row: SessionTransactionRow | undefined,
  transfer: IncomingTransfer,
): Promise<void> {
  if (!row || row.status === 'reverted') {
    return
  }
  const ledger = { db, ids: deps.ids, clock: deps.clock }
  if (row.ledger_transaction_id && row.status === 'pending') {
    await voidPendingTransaction(ledger, {
      environment: row.environment,
      transactionId: row.ledger_transaction_id,
    })
  } else if (row.ledger_transaction_id) {
    // Already posted (a reorg deeper than the confirmation count): its fee hold is released and a
    // correcting transfer takes the credit back.
    await releaseSessionFees(db, deps, { row: session, transferId: transfer.id })
    const credit = toSessionCreditLegs(deps, session, {
      amount: BigInt(row.amount),
      to: row.attributed ? 'merchant' : 'suspense',
    })
    await postTransaction(ledger, {
      environment: row.environment,
      idempotencyKey: `session-tx:${transfer.id}:reversal`,
      legs: toReversalLegs(credit.legs),
      source: 'payment',
      sourceId: session.id,
      sourceReference: session.reference,
      reference: session.reference,
      description: `Reorg reversal for payment session ${session.reference}`,
      txHash: row.tx_hash,
    })
  }
  await touch(db, deps, row.id, { status: 'reverted', failure_reason: reorgReason })
  if (row.attributed) {
    await reconcileSession(db, deps, { row: session, trigger: 'reverted' })
  }
}

async function lockSession(db: Db, id: string): Promise<SessionRow> {
  return db
    .selectFrom('payment_sessions')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirstOrThrow()
}

async function touch(
  db: Db,
  deps: Pick<Deps, 'clock'>,
  id: string,
  changes: {
    status?: 'confirmed' | 'reverted'
    confirmations?: number
    confirmed_at?: Date
    failure_reason?: string
  },
): Promise<void> {
  await db
    .updateTable('payment_session_transactions')
    .set({ ...changes, updated_at: deps.clock.now() })
    .where('id', '=', id)
    .execute()
}
