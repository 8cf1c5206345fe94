import { randomBytes } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { openSettlementDatabase } from '../src/open-settlement-database.js'
import type { SettlementDatabase } from '../src/postgres-settlement-store.js'

/** A database a test runs on, in its own schema, plus how to drop it. */
export type TestDatabase = { db: Kysely<SettlementDatabase>; schema: string; cleanup(): Promise<void> }

/** A way to open a fresh {@link TestDatabase}. */
export type TestDatabaseKind = {
  name: string
  open(): Promise<TestDatabase>
  /** Opens another connection (pool) to the same database, as a second process would. */
  openPeer(database: TestDatabase): Promise<Kysely<SettlementDatabase>>
}

const url = process.env.TEST_DATABASE_URL
let sharedPglite: Promise<Kysely<SettlementDatabase>> | undefined

/** Closes the PGlite instance the test file shared (call in `afterAll`). */
export async function closeTestDatabases(): Promise<void> {
  const pglite = sharedPglite
  sharedPglite = undefined
  await (await pglite)?.destroy()
}

/** PGlite always; PostgreSQL too when `TEST_DATABASE_URL` is set. Every open gets a unique schema. */
export const testDatabaseKinds: TestDatabaseKind[] = [
  {
    name: 'PGlite',
    // Starting PGlite takes seconds; one instance per test file, one schema per test.
    async open() {
      sharedPglite ??= openSettlementDatabase()
      const db = await sharedPglite
      const schema = uniqueSchema()
      return { db, schema, cleanup: () => dropSchema(db, schema) }
    },
    // PGlite is one session in one process; a "peer" shares that session.
    async openPeer(database) {
      return database.db
    },
  },
  ...(url
    ? [
        {
          name: 'PostgreSQL',
          async open(): Promise<TestDatabase> {
            const db = await openSettlementDatabase({ databaseUrl: url, poolSize: 20 })
            const schema = uniqueSchema()
            return {
              db,
              schema,
              async cleanup() {
                await dropSchema(db, schema)
                await db.destroy()
              },
            }
          },
          openPeer: () => openSettlementDatabase({ databaseUrl: url, poolSize: 20 }),
        },
      ]
    : []),
]

async function dropSchema(db: Kysely<SettlementDatabase>, schema: string): Promise<void> {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db)
}

function uniqueSchema(): string {
  return `facilitator_test_${randomBytes(6).toString('hex')}`
}
