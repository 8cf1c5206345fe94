import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/**
 * Runs `fn` in a database transaction: the caller's when `db` already is one (so a domain function
 * can join the transaction of a larger state change), else a new one committed when `fn` resolves
 * and rolled back when it throws.
 */
export function inTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn)
}
