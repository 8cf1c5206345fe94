import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe } from 'vitest'
import type { Database } from '../db/database.js'
import type { OpenedDatabase } from '../db/open-database.js'
import { getTestDatabases } from './test-databases.js'

/**
 * Runs `suite` once per test database (PGlite, and PostgreSQL when `TEST_DATABASE_URL` is set),
 * each on a fresh migrated database that is closed (and on PostgreSQL dropped) afterwards.
 * `poolSize` sizes the PostgreSQL pool (race tests need more than the default 10 connections).
 * `getOpened` gives the whole opened database (its notifications, for job runners). `onQuery` sees
 * the SQL of every statement run (statement-count tests).
 */
export function describeEachDatabase(
  name: string,
  suite: (
    getDb: () => Kysely<Database>,
    engine: 'pglite' | 'postgres',
    getOpened: () => OpenedDatabase,
  ) => void,
  options: { poolSize?: number; onQuery?: (sql: string) => void } = {},
): void {
  for (const database of getTestDatabases(options)) {
    describe(`${name} [${database.name}]`, () => {
      let opened: OpenedDatabase | undefined
      beforeAll(async () => {
        opened = await database.open()
      })
      afterAll(async () => {
        await opened?.close()
      })
      const getOpened = () => {
        if (!opened) {
          throw new Error('test database not opened')
        }
        return opened
      }
      suite(() => getOpened().db, database.name, getOpened)
    })
  }
}
