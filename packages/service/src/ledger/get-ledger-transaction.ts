import type { Kysely, Selectable } from 'kysely'
import type { Database } from '../db/database.js'
import type { LedgerTransfersTable } from '../db/schema/ledger.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { LedgerCurrency } from './ledger-currencies.js'
import type { LedgerSource, LedgerTransaction, LedgerTransfer } from './ledger-types.js'

/** A ledger transaction with its transfers, by id or by idempotency key; `undefined` when absent. */
export async function getLedgerTransaction(
  deps: Pick<Deps, 'db'>,
  input: { environment: KeyEnvironment } & ({ id: string } | { idempotencyKey: string }),
): Promise<LedgerTransaction | undefined> {
  return (await findLedgerTransaction(deps.db, input))?.transaction
}

/** Like {@link getLedgerTransaction}, with the stored request hash (idempotent replays compare it). */
export async function findLedgerTransaction(
  db: Kysely<Database>,
  input: { environment: KeyEnvironment } & ({ id: string } | { idempotencyKey: string }),
): Promise<{ transaction: LedgerTransaction; requestHash: string } | undefined> {
  let query = db.selectFrom('ledger_transactions').selectAll().where('environment', '=', input.environment)
  query =
    'id' in input
      ? query.where('id', '=', input.id)
      : query.where('idempotency_key', '=', input.idempotencyKey)
  const row = await query.executeTakeFirst()
  if (!row) {
    return undefined
  }
  const transfers = await db
    .selectFrom('ledger_transfers')
    .selectAll()
    .where('transaction_id', '=', row.id)
    .orderBy('leg')
    .execute()
  const transaction: LedgerTransaction = {
    id: row.id,
    environment: row.environment,
    idempotencyKey: row.idempotency_key,
    source: row.source as LedgerSource,
    sourceId: row.source_id,
    sourceReference: row.source_reference,
    reference: row.reference,
    description: row.description,
    txHash: row.tx_hash,
    transfers: transfers.map(toLedgerTransfer),
    replayed: false,
    createdAt: row.created_at,
  }
  return { transaction, requestHash: row.request_hash }
}

/** Maps a `ledger_transfers` row to a {@link LedgerTransfer}. */
export function toLedgerTransfer(row: Selectable<LedgerTransfersTable>): LedgerTransfer {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    leg: row.leg,
    environment: row.environment,
    currency: row.currency as LedgerCurrency,
    debitAccountId: row.debit_account_id,
    creditAccountId: row.credit_account_id,
    amount: BigInt(row.amount),
    phase: row.phase,
    pendingId: row.pending_id,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  }
}
