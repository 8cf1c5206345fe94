import { AppError } from '@tollgate/core'
import type { Insertable, Kysely, Selectable } from 'kysely'
import type { Database } from '../db/database.js'
import type { LedgerAccountsTable } from '../db/schema/ledger.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type AccountCounters, toAccountCounters } from './account-balance.js'
import { type AccountCode, getAccountPolicy } from './chart-of-accounts.js'

/** An account row locked `FOR UPDATE` by the current transaction, with its counters as bigints. */
export type LockedAccount = {
  id: string
  code: string
  currency: string
  merchantId: string | null
  debitsMustNotExceedCredits: boolean
  creditsMustNotExceedDebits: boolean
  counters: AccountCounters
}

/** An account by its natural key within one environment. */
export type AccountRef = { code: AccountCode; currency: string }

/** Map key of an account reference: `code|currency`. */
export function toAccountKey(ref: { code: string; currency: string }): string {
  return `${ref.code}|${ref.currency}`
}

/** An account row to create (the chart's flags applied). */
export type NewAccountRow = Insertable<LedgerAccountsTable>

/**
 * What {@link ensureAndLockAccounts} found: the locked accounts, or in `defer` mode the rows still
 * to create. The caller then ends its transaction (it has written nothing yet), creates them with
 * {@link createAccounts} outside any transaction, and tries again: creating accounts while holding
 * row locks could deadlock.
 */
export type LockedAccounts =
  | { accounts: Map<string, LockedAccount>; missing: null }
  | { accounts: null; missing: NewAccountRow[] }

/**
 * Locks the referenced accounts `FOR UPDATE` in id order, so concurrent ledger transactions always
 * lock in the same order and never deadlock on each other. Missing accounts (with the chart's
 * flags) are created `inline`, or returned as `missing` in `defer` mode. Accounts are keyed by
 * {@link toAccountKey}.
 */
export async function ensureAndLockAccounts(
  trx: Kysely<Database>,
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: { environment: KeyEnvironment; refs: AccountRef[]; missing: 'inline' | 'defer' },
): Promise<LockedAccounts> {
  const unique = [...new Map(input.refs.map((ref) => [toAccountKey(ref), ref])).values()].sort((a, b) =>
    toAccountKey(a) < toAccountKey(b) ? -1 : 1,
  )
  for (const ref of unique) {
    if (getAccountPolicy(ref.code).testOnly && input.environment !== 'test') {
      throw new AppError('forbidden', {
        message: `${ref.code} exists in the sandbox (test) environment only`,
      })
    }
  }
  const locked = await lockByRefs(trx, input.environment, unique)
  if (locked.size === unique.length) {
    return { accounts: locked, missing: null }
  }
  const rows = toNewAccountRows(
    deps,
    input.environment,
    unique.filter((ref) => !locked.has(toAccountKey(ref))),
  )
  if (input.missing === 'defer') {
    return { accounts: null, missing: rows }
  }
  await createAccounts(trx, rows)
  return { accounts: await lockByRefs(trx, input.environment, unique), missing: null }
}

/**
 * Creates the referenced ledger accounts that do not exist yet, each in its own autocommit
 * statement. A caller that posts inside its own larger transaction can run this first, so the
 * ledger never creates accounts while that transaction holds row locks.
 */
export async function ensureLedgerAccounts(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { environment: KeyEnvironment; refs: AccountRef[] },
): Promise<void> {
  const unique = [...new Map(input.refs.map((ref) => [toAccountKey(ref), ref])).values()].sort((a, b) =>
    toAccountKey(a) < toAccountKey(b) ? -1 : 1,
  )
  await createAccounts(deps.db, toNewAccountRows(deps, input.environment, unique))
}

function toNewAccountRows(
  deps: Pick<Deps, 'ids' | 'clock'>,
  environment: KeyEnvironment,
  refs: AccountRef[],
): NewAccountRow[] {
  const now = deps.clock.now()
  return refs.map((ref) => {
    const policy = getAccountPolicy(ref.code)
    return {
      id: deps.ids.create('acc'),
      environment,
      code: ref.code,
      currency: ref.currency,
      merchant_id: policy.merchantId,
      debits_must_not_exceed_credits: policy.debitsMustNotExceedCredits,
      credits_must_not_exceed_debits: policy.creditsMustNotExceedDebits,
      created_at: now,
    }
  })
}

/** Inserts account rows, skipping those that exist; rows sorted by natural key keep waits ordered. */
export async function createAccounts(db: Kysely<Database>, rows: NewAccountRow[]): Promise<void> {
  await db
    .insertInto('ledger_accounts')
    .values(rows)
    .onConflict((oc) => oc.columns(['environment', 'code', 'currency']).doNothing())
    .execute()
    .catch((error: unknown) => {
      // 23503 foreign_key_violation: a `merchant:` code naming a merchant that does not exist.
      if ((error as { code?: unknown }).code === '23503') {
        throw new AppError('not_found', {
          message: 'Merchant of a ledger account not found',
          context: { param: 'account' },
          cause: error,
        })
      }
      throw error
    })
}

async function lockByRefs(
  trx: Kysely<Database>,
  environment: KeyEnvironment,
  refs: AccountRef[],
): Promise<Map<string, LockedAccount>> {
  const rows = await trx
    .selectFrom('ledger_accounts')
    .selectAll()
    .where('environment', '=', environment)
    .where((eb) =>
      eb.or(refs.map((ref) => eb.and([eb('code', '=', ref.code), eb('currency', '=', ref.currency)]))),
    )
    .orderBy('id')
    .forUpdate()
    .execute()
  return new Map(rows.map((row) => [toAccountKey(row), toLockedAccount(row)]))
}

/** Locks accounts by id `FOR UPDATE` in id order; returns them by id. */
export async function lockAccountsById(
  trx: Kysely<Database>,
  ids: string[],
): Promise<Map<string, LockedAccount>> {
  const locked = await trx
    .selectFrom('ledger_accounts')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .forUpdate()
    .execute()
  return new Map(locked.map((row) => [row.id, toLockedAccount(row)]))
}

/** Maps a `ledger_accounts` row to a {@link LockedAccount}. */
export function toLockedAccount(row: Selectable<LedgerAccountsTable>): LockedAccount {
  return {
    id: row.id,
    code: row.code,
    currency: row.currency,
    merchantId: row.merchant_id,
    debitsMustNotExceedCredits: row.debits_must_not_exceed_credits,
    creditsMustNotExceedDebits: row.credits_must_not_exceed_debits,
    counters: toAccountCounters(row),
  }
}
