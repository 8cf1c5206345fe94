import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { type OpenedDatabase, openDatabase } from '../db/open-database.js'

/** A database engine the e2e tests run on, and how to open a fresh, migrated, private database on it. */
export type TestDatabase = { name: 'pglite' | 'postgres'; open: () => Promise<OpenedDatabase> }

/**
 * The databases every database test runs on: PGlite in memory, and PostgreSQL when
 * `TEST_DATABASE_URL` is set. Each PostgreSQL open gets its own schema (so parallel test files
 * never see each other's rows), dropped again by `close()`.
 */
export function getTestDatabases(
  options: {
    poolSize?: number
    env?: Record<string, string | undefined>
    onQuery?: (sql: string) => void
  } = {},
): TestDatabase[] {
  const { onQuery } = options
  const databases: TestDatabase[] = [{ name: 'pglite', open: () => openDatabase({ onQuery }) }]
  const url = (options.env ?? process.env).TEST_DATABASE_URL
  if (url) {
    const poolOptions = { ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }), onQuery }
    databases.push({ name: 'postgres', open: () => openPostgresTestDatabase(url, poolOptions) })
  }
  return databases
}

/** Opens a migrated database in a new schema `svc_test_…` on the server at `url`; `close()` drops it. */
export async function openPostgresTestDatabase(
  url: string,
  options: { poolSize?: number; onQuery?: ((sql: string) => void) | undefined } = {},
): Promise<OpenedDatabase> {
  const schema = `svc_test_${randomBytes(6).toString('hex')}`
  const dropSchema = async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(`drop schema if exists ${schema} cascade`)
    } finally {
      await client.end()
    }
  }
  const opened = await openDatabase({ databaseUrl: url, schema, ...options }).catch(
    async (error: unknown) => {
      await dropSchema()
      throw error
    },
  )
  return {
    ...opened,
    close: async () => {
      await opened.close()
      await dropSchema()
    },
  }
}
