import type { Kysely } from 'kysely'
import type { Database } from './database.js'

// 40P01 deadlock_detected, 40001 serialization_failure: Postgres aborted the transaction, and
// running it again from the start is the documented remedy.
const retryableCodes = new Set(['40P01', '40001'])

/**
 * Runs `fn` in a database transaction: the caller's when `db` already is one (so a domain function
 * can join the transaction of a larger state change), else a new one committed when `fn` resolves
 * and rolled back when it throws. A transaction opened here that Postgres aborts for a deadlock or
 * serialization failure is retried up to `retries` times (default 3).
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Kysely<Database>) => Promise<T>,
  options: { retries?: number } = {},
): Promise<T> {
  if (db.isTransaction) {
    return fn(db)
  }
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(fn)
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (attempt >= (options.retries ?? 3) || typeof code !== 'string' || !retryableCodes.has(code)) {
        throw error
      }
    }
  }
}
