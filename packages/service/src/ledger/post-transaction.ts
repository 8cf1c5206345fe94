import { createHash } from 'node:crypto'
import { AppError } from '@tollgate/core'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { applyTransfers, type TransferToApply } from './apply-transfers.js'
import { getAccountPolicy } from './chart-of-accounts.js'
import { findLedgerTransaction } from './get-ledger-transaction.js'
import { isLedgerCurrency } from './ledger-currencies.js'
import type { LedgerLeg, LedgerTransaction, LedgerTransactionInfo, LedgerTransfer } from './ledger-types.js'
import { createAccounts, ensureAndLockAccounts, type NewAccountRow, toAccountKey } from './lock-accounts.js'

/** Input of {@link postTransaction}. */
export type PostTransactionInput = LedgerTransactionInfo & {
  environment: KeyEnvironment
  /** Unique per environment: the same key with the same input returns the first result; other input is a 422. */
  idempotencyKey: string
  /** 1 to 64 legs, applied in order, all or none. */
  legs: readonly LedgerLeg[]
  /** Two-phase: record every leg as pending (reserved or incoming) to be posted or voided later. */
  pending?: boolean
  /** For pending transfers: after this instant the transfer can no longer be posted and expires. */
  expiresAt?: Date | undefined
  /**
   * The `ltx_…` id to give the transaction (default a new one), so a caller can write it into its
   * own row before posting instead of updating that row afterwards. Unused on a replay.
   */
  transactionId?: string | undefined
}

/** Deps of the ledger's write functions; `db` may be a transaction the caller already opened. */
export type LedgerDeps = Pick<Deps, 'db' | 'ids' | 'clock'>

/**
 * Posts a linked multi-leg ledger transaction in one database transaction: every leg is applied or
 * none is. Merchant accounts never go negative: a leg that would overdraw one throws
 * `insufficient_balance` and rolls the whole transaction back. Idempotent on `idempotencyKey`.
 */
export async function postTransaction(
  deps: LedgerDeps,
  input: PostTransactionInput,
): Promise<LedgerTransaction> {
  assertValidInput(input)
  const requestHash = hashInput(input)
  // In our own transaction, missing accounts are created outside it and the transaction rerun.
  const own = !deps.db.isTransaction
  const first = await attempt(deps, input, requestHash, own ? 'defer' : 'inline')
  if (!('missing' in first)) {
    return first
  }
  await createAccounts(deps.db, first.missing)
  const second = await attempt(deps, input, requestHash, 'inline')
  if ('missing' in second) {
    throw new AppError('internal_error', { message: 'ledger accounts were not created inline' })
  }
  return second
}

function attempt(
  deps: LedgerDeps,
  input: PostTransactionInput,
  requestHash: string,
  missing: 'inline' | 'defer',
): Promise<LedgerTransaction | { missing: NewAccountRow[] }> {
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now()
    const transactionId = input.transactionId ?? deps.ids.create('ltx')
    const claim = () =>
      trx
        .insertInto('ledger_transactions')
        .values({
          id: transactionId,
          environment: input.environment,
          idempotency_key: input.idempotencyKey,
          request_hash: requestHash,
          source: input.source,
          source_id: input.sourceId ?? null,
          source_reference: input.sourceReference ?? null,
          reference: input.reference ?? null,
          description: input.description ?? null,
          tx_hash: input.txHash ?? null,
          created_at: now,
        })
        .onConflict((oc) => oc.columns(['environment', 'idempotency_key']).doNothing())
        .returning('created_at')
        .executeTakeFirst()
    // Inline (accounts are created here if missing, so this transaction always posts): the key is
    // claimed before the accounts are locked, so the locks, which concurrent postings to the same
    // accounts wait for, are held for one statement less, and a replay locks nothing.
    // Defer: accounts first, so when some are missing nothing has been written yet, ending the
    // transaction here commits nothing, and the caller creates them outside it.
    const claimedFirst = missing === 'inline' ? await claim() : undefined
    if (missing === 'inline' && !claimedFirst) {
      return replayTransaction(trx, input, requestHash)
    }
    const locked = await ensureAndLockAccounts(trx, deps, {
      environment: input.environment,
      missing,
      refs: input.legs.flatMap((leg) => [
        { code: leg.debit, currency: leg.currency },
        { code: leg.credit, currency: leg.currency },
      ]),
    })
    if (locked.missing) {
      return { missing: locked.missing }
    }
    const accounts = locked.accounts
    const claimed = claimedFirst ?? (await claim())
    if (!claimed) {
      return replayTransaction(trx, input, requestHash)
    }
    const transfers: TransferToApply[] = []
    for (const [index, leg] of input.legs.entries()) {
      const debit = accounts.get(toAccountKey({ code: leg.debit, currency: leg.currency }))
      const credit = accounts.get(toAccountKey({ code: leg.credit, currency: leg.currency }))
      if (!debit || !credit) {
        throw new AppError('internal_error', { message: `ledger account of leg ${index} was not locked` })
      }
      transfers.push({
        id: deps.ids.create('tr'),
        transactionId,
        leg: index,
        environment: input.environment,
        currency: leg.currency,
        debit,
        credit,
        amount: leg.amount,
        phase: input.pending ? ('pending' as const) : ('single' as const),
        pendingId: null,
        expiresAt: input.pending ? (input.expiresAt ?? null) : null,
      })
    }
    const applied = await applyTransfers(trx, deps, { transfers, info: input, now })
    return toTransaction(transactionId, input, applied, claimed.created_at)
  })
}

/** Posts a single- or multi-leg two-phase transaction: {@link postTransaction} with `pending: true`. */
export function createPendingTransfer(
  deps: LedgerDeps,
  input: Omit<PostTransactionInput, 'pending'>,
): Promise<LedgerTransaction> {
  return postTransaction(deps, { ...input, pending: true })
}

/** Throws `validation_error` for input {@link postTransaction} refuses (key length, leg count, amounts, accounts). */
export function assertValidInput(input: PostTransactionInput): void {
  const invalid = (message: string, param: string) =>
    new AppError('validation_error', { message: message, context: { param } })
  if (input.idempotencyKey.length === 0 || input.idempotencyKey.length > 255) {
    throw invalid('idempotencyKey must be 1-255 characters', 'idempotencyKey')
  }
  if (input.legs.length === 0 || input.legs.length > 64) {
    throw invalid('a ledger transaction has 1 to 64 legs', 'legs')
  }
  if (input.expiresAt !== undefined && !input.pending) {
    throw invalid('expiresAt applies to pending transfers only', 'expiresAt')
  }
  for (const [index, leg] of input.legs.entries()) {
    getAccountPolicy(leg.debit)
    getAccountPolicy(leg.credit)
    if (!isLedgerCurrency(leg.currency)) {
      throw invalid(`leg ${index}: unknown currency ${leg.currency}`, `legs.${index}.currency`)
    }
    if (leg.amount <= 0n) {
      throw invalid(`leg ${index}: amount must be greater than zero`, `legs.${index}.amount`)
    }
    if (leg.debit === leg.credit) {
      throw invalid(`leg ${index}: debit and credit accounts must differ`, `legs.${index}`)
    }
  }
}

/** The request hash stored with a ledger transaction, compared when its idempotency key is used again. */
export function hashInput(input: PostTransactionInput): string {
  const canonical = {
    environment: input.environment,
    legs: input.legs.map((leg) => [leg.debit, leg.credit, leg.currency, leg.amount.toString()]),
    pending: input.pending ?? false,
    expiresAt: input.expiresAt?.toISOString() ?? null,
    info: [
      input.source,
      input.sourceId,
      input.sourceReference,
      input.reference,
      input.description,
      input.txHash,
    ],
  }
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex')
}

async function replayTransaction(
  trx: Kysely<Database>,
  input: PostTransactionInput,
  requestHash: string,
): Promise<LedgerTransaction> {
  const existing = await findLedgerTransaction(trx, {
    environment: input.environment,
    idempotencyKey: input.idempotencyKey,
  })
  if (!existing || existing.requestHash !== requestHash) {
    throw new AppError('idempotency_key_reused', {
      message: `Ledger idempotency key ${input.idempotencyKey} was already used for a different transaction`,
      context: { param: 'idempotencyKey' },
    })
  }
  return { ...existing.transaction, replayed: true }
}

function toTransaction(
  id: string,
  input: PostTransactionInput,
  transfers: LedgerTransfer[],
  createdAt: Date,
): LedgerTransaction {
  return {
    id,
    environment: input.environment,
    idempotencyKey: input.idempotencyKey,
    source: input.source,
    sourceId: input.sourceId ?? null,
    sourceReference: input.sourceReference ?? null,
    reference: input.reference ?? null,
    description: input.description ?? null,
    txHash: input.txHash ?? null,
    transfers,
    replayed: false,
    createdAt,
  }
}
