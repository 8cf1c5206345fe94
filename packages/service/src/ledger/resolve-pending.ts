import { createHash } from 'node:crypto'
import { AppError, isAppError } from '@tollgate/core'
import type { Kysely, Selectable } from 'kysely'
import type { Database } from '../db/database.js'
import { inTransaction } from '../db/in-transaction.js'
import type { LedgerTransfersTable } from '../db/schema/ledger.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { applyTransfers, type TransferToApply } from './apply-transfers.js'
import { findLedgerTransaction } from './get-ledger-transaction.js'
import type { LedgerCurrency } from './ledger-currencies.js'
import type { LedgerSource, LedgerTransaction } from './ledger-types.js'
import { lockAccountsById } from './lock-accounts.js'
import type { LedgerDeps } from './post-transaction.js'

type Resolution = 'post' | 'void' | 'expire'
type Target = { environment: KeyEnvironment } & ({ transferId: string } | { transactionId: string })

/** Posts a pending transfer: the reserved amount becomes posted. Idempotent; 409 once voided or expired. */
export function postPendingTransfer(
  deps: LedgerDeps,
  input: { environment: KeyEnvironment; transferId: string },
): Promise<LedgerTransaction> {
  return resolvePending(deps, input, 'post')
}

/** Voids a pending transfer: the reservation is released. Idempotent; 409 once posted or expired. */
export function voidPendingTransfer(
  deps: LedgerDeps,
  input: { environment: KeyEnvironment; transferId: string },
): Promise<LedgerTransaction> {
  return resolvePending(deps, input, 'void')
}

/** Posts every pending leg of a two-phase transaction at once (all or none). */
export function postPendingTransaction(
  deps: LedgerDeps,
  input: { environment: KeyEnvironment; transactionId: string },
): Promise<LedgerTransaction> {
  return resolvePending(deps, input, 'post')
}

/** Voids every pending leg of a two-phase transaction at once (all or none). */
export function voidPendingTransaction(
  deps: LedgerDeps,
  input: { environment: KeyEnvironment; transactionId: string },
): Promise<LedgerTransaction> {
  return resolvePending(deps, input, 'void')
}

/**
 * Expires (voids, with phase `expire`) up to `limit` pending transfers whose `expiresAt` has passed,
 * one database transaction each; returns how many it expired. Meant for a periodic job.
 */
export async function expirePendingTransfers(
  deps: LedgerDeps,
  input: { limit?: number } = {},
): Promise<number> {
  const due = await deps.db
    .selectFrom('ledger_transfers as p')
    .select(['p.id', 'p.environment'])
    .where('p.phase', '=', 'pending')
    .where('p.expires_at', '<=', deps.clock.now())
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('ledger_transfers as r').select('r.id').whereRef('r.pending_id', '=', 'p.id'))),
    )
    .orderBy('p.expires_at')
    .limit(input.limit ?? 100)
    .execute()
  let expired = 0
  for (const transfer of due) {
    try {
      await resolvePending(deps, { environment: transfer.environment, transferId: transfer.id }, 'expire')
      expired += 1
    } catch (error) {
      // Posted or voided by someone else since the scan: nothing left to expire.
      if (!isAppError(error, 'pending_transfer_already_resolved')) {
        throw error
      }
    }
  }
  return expired
}

async function resolvePending(
  deps: LedgerDeps,
  target: Target,
  phase: Resolution,
): Promise<LedgerTransaction> {
  const targetId = 'transferId' in target ? target.transferId : target.transactionId
  const idempotencyKey = `${phase}:${targetId}`
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now()
    const pending = await selectPending(trx, target)
    const origin = await trx
      .selectFrom('ledger_transactions')
      .selectAll()
      .where('id', '=', pending[0]?.transaction_id ?? '')
      .executeTakeFirst()
    if (!origin || pending.length === 0) {
      throw new AppError('not_found', {
        message: `Pending transfer ${targetId} not found`,
        context: { param: 'transferId' },
      })
    }
    const id = deps.ids.create('ltx')
    const claimed = await trx
      .insertInto('ledger_transactions')
      .values({
        id,
        environment: target.environment,
        idempotency_key: idempotencyKey,
        request_hash: createHash('sha256').update(idempotencyKey).digest('hex'),
        source: origin.source,
        source_id: origin.source_id,
        source_reference: origin.source_reference,
        reference: origin.reference,
        description: origin.description,
        tx_hash: origin.tx_hash,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['environment', 'idempotency_key']).doNothing())
      .returning('created_at')
      .executeTakeFirst()
    if (!claimed) {
      const replay = await findLedgerTransaction(trx, { environment: target.environment, idempotencyKey })
      if (!replay) {
        throw new AppError('internal_error', { message: `ledger transaction ${idempotencyKey} vanished` })
      }
      return { ...replay.transaction, replayed: true }
    }
    const accounts = await lockAccountsById(
      trx,
      pending.flatMap((t) => [t.debit_account_id, t.credit_account_id]),
    )
    await assertResolvable(trx, pending, phase, now)
    const transfers: TransferToApply[] = []
    for (const [leg, row] of pending.entries()) {
      const debit = accounts.get(row.debit_account_id)
      const credit = accounts.get(row.credit_account_id)
      if (!debit || !credit) {
        throw new AppError('internal_error', { message: `accounts of transfer ${row.id} were not locked` })
      }
      transfers.push({
        id: deps.ids.create('tr'),
        transactionId: id,
        leg,
        environment: row.environment,
        currency: row.currency as LedgerCurrency,
        debit,
        credit,
        amount: BigInt(row.amount),
        phase,
        pendingId: row.id,
        expiresAt: null,
      })
    }
    const info = {
      source: origin.source as LedgerSource,
      sourceId: origin.source_id,
      sourceReference: origin.source_reference,
      reference: origin.reference,
      description: origin.description,
      txHash: origin.tx_hash,
    }
    const applied = await applyTransfers(trx, deps, { transfers, info, now })
    return {
      ...info,
      id,
      environment: target.environment,
      idempotencyKey,
      transfers: applied,
      replayed: false,
      createdAt: claimed.created_at,
    }
  })
}

function selectPending(trx: Kysely<Database>, target: Target): Promise<Selectable<LedgerTransfersTable>[]> {
  let query = trx
    .selectFrom('ledger_transfers')
    .selectAll()
    .where('environment', '=', target.environment)
    .where('phase', '=', 'pending')
  query =
    'transferId' in target
      ? query.where('id', '=', target.transferId)
      : query.where('transaction_id', '=', target.transactionId)
  return query.orderBy('leg').execute()
}

// Runs after the accounts are locked, so a concurrent resolution has either committed (and is seen
// here) or waits behind us; the unique `pending_id` index is the backstop.
async function assertResolvable(
  trx: Kysely<Database>,
  pending: Selectable<LedgerTransfersTable>[],
  phase: Resolution,
  now: Date,
): Promise<void> {
  const resolved = await trx
    .selectFrom('ledger_transfers')
    .select(['pending_id', 'phase'])
    .where(
      'pending_id',
      'in',
      pending.map((t) => t.id),
    )
    .executeTakeFirst()
  if (resolved) {
    throw new AppError('pending_transfer_already_resolved', {
      message: `Pending transfer ${resolved.pending_id} was already resolved (${resolved.phase})`,
      context: { details: { transferId: resolved.pending_id, resolution: resolved.phase } },
    })
  }
  const expired = pending.find((t) => t.expires_at !== null && t.expires_at <= now)
  if (phase === 'post' && expired) {
    throw new AppError('pending_transfer_expired', {
      message: `Pending transfer ${expired.id} has expired`,
      context: { details: { transferId: expired.id } },
    })
  }
  if (phase === 'expire' && pending.some((t) => t.expires_at === null || t.expires_at > now)) {
    throw new AppError('validation_error', { message: 'Only pending transfers past their expiry can expire' })
  }
}
