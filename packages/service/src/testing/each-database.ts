import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe } from 'vitest'
import type { Database } from '../db/database.js'
import { getTestDatabases } from './test-databases.js'

/**
 * Runs `suite` once per test database (PGlite, and PostgreSQL when `TEST_DATABASE_URL` is set),
 * each on a fresh migrated database that is closed (and on PostgreSQL dropped) afterwards.
 * `poolSize` sizes the PostgreSQL pool (race tests need more than the default 10 connections).
 */
export function describeEachDatabase(
  name: string,
  suite: (getDb: () => Kysely<Database>, engine: 'pglite' | 'postgres') => void,
  options: { poolSize?: number } = {},
): void {
  for (const database of getTestDatabases(options)) {
    describe(`${name} [${database.name}]`, () => {
      let db: Kysely<Database> | undefined
      let close: (() => Promise<void>) | undefined
      beforeAll(async () => {
        const opened = await database.open()
        db = opened.db
        close = opened.close
      })
      afterAll(async () => {
        await close?.()
      })
      suite(() => {
        if (!db) {
          throw new Error('test database not opened')
        }
        return db
      }, database.name)
    })
  }
}
