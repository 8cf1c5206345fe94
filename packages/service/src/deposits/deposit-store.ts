import type { Deps } from '../deps.js'
import { emitEvent } from '../events/emit-event.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { Db } from '../rails/types.js'
import { type DepositRow, toDepositResponse } from './deposit.js'
import type { DepositAccountRecord } from './deposit-account.js'
import { toDepositAccountRecords } from './list-deposit-accounts.js'
import type { DepositCredit } from './plan-deposit-credit.js'

/** The deposit recorded for a transfer (`incoming:{id}` or `inbound:{id}`), locked for update. */
export function findDepositBySource(
  db: Db,
  input: { environment: KeyEnvironment; sourceKey: string },
): Promise<DepositRow | undefined> {
  return db
    .selectFrom('deposits')
    .selectAll()
    .where('environment', '=', input.environment)
    .where('source_key', '=', input.sourceKey)
    .forUpdate()
    .executeTakeFirst()
}

/** A deposit account with its holder and identities, by id within an environment. */
export async function loadDepositTarget(
  db: Db,
  input: { environment: KeyEnvironment; depositAccountId: string },
): Promise<DepositAccountRecord | undefined> {
  const row = await db
    .selectFrom('deposit_accounts')
    .selectAll()
    .where('environment', '=', input.environment)
    .where('id', '=', input.depositAccountId)
    .executeTakeFirst()
  return row && (await toDepositAccountRecords(db, [row]))[0]
}

/** Inserts a pending deposit of `target` with its planned credit. */
export function insertDeposit(
  db: Db,
  deps: Pick<Deps, 'clock'>,
  input: {
    id: string
    target: DepositAccountRecord
    type: 'crypto' | 'fiat'
    sourceKey: string
    credit: DepositCredit
    ledgerTransactionId: string | null
    txHash: string | null
    chain: string | null
    crypto?: Record<string, unknown>
    fiat?: Record<string, unknown>
  },
): Promise<DepositRow> {
  const now = deps.clock.now()
  const { account } = input.target
  return db
    .insertInto('deposits')
    .values({
      id: input.id,
      merchant_id: account.merchant_id,
      environment: account.environment,
      deposit_account_id: account.id,
      customer_id: account.customer_id,
      type: input.type,
      status: 'pending',
      source_key: input.sourceKey,
      currency: input.credit.currency,
      amount: input.credit.amount,
      fee: input.credit.fee,
      net_amount: input.credit.netAmount,
      conversion: input.credit.conversion === null ? null : JSON.stringify(input.credit.conversion),
      crypto: input.crypto === undefined ? null : JSON.stringify(input.crypto),
      fiat: input.fiat === undefined ? null : JSON.stringify(input.fiat),
      tx_hash: input.txHash,
      chain: input.chain,
      ledger_transaction_id: input.ledgerTransactionId,
      failure_reason: null,
      response_format: account.response_format,
      created_at: now,
      updated_at: now,
      completed_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Emits a `deposit.*` event with the deposit as the API returns it, in the caller's transaction. */
export async function emitDepositEvent(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock' | 'settings'>,
  deposit: DepositRow,
  target: DepositAccountRecord,
  type: 'deposit.pending' | 'deposit.completed' | 'deposit.failed',
): Promise<void> {
  await emitEvent(db, deps, {
    merchantId: deposit.merchant_id,
    environment: deposit.environment,
    type,
    format: deposit.response_format,
    data: { deposit: toDepositResponse(deposit, target.customer) },
  })
}

/** Moves a pending deposit to its final status and emits `deposit.completed` or `deposit.failed`. */
export async function settleDeposit(
  deps: Pick<Deps, 'ids' | 'clock' | 'settings'>,
  db: Db,
  deposit: DepositRow,
  outcome: { status: 'completed' } | { status: 'failed'; failureReason: string },
): Promise<DepositRow> {
  const now = deps.clock.now()
  const updated = await db
    .updateTable('deposits')
    .set(
      outcome.status === 'completed'
        ? { status: 'completed', completed_at: now, updated_at: now }
        : { status: 'failed', failure_reason: outcome.failureReason, updated_at: now },
    )
    .where('id', '=', deposit.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  const target = await loadDepositTarget(db, {
    environment: deposit.environment,
    depositAccountId: deposit.deposit_account_id,
  })
  if (target) {
    await emitDepositEvent(
      db,
      deps,
      updated,
      target,
      outcome.status === 'completed' ? 'deposit.completed' : 'deposit.failed',
    )
  }
  return updated
}
