import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe } from 'vitest'
import type { Database } from '../db-connection.js'
import { getTestDatabases } from '../db-connection.js'

/** Runs `suite` once per test database (PGlite, and PostgreSQL when configured), with a fresh migrated db. */
export function describeEachDatabase(name: string, suite: (getDb: () => Kysely<Database>) => void): void {
  for (const database of getTestDatabases()) {
    describe(`${name} [${database.name}]`, () => {
      let db: Kysely<Database> | undefined
      let close: (() => Promise<void>) | undefined
      beforeAll(async () => {
        const opened = await database.create()
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
      })
    })
  }
}
