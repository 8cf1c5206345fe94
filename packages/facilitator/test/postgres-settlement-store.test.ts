import { sql } from 'kysely'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { createPostgresSettlementStore } from '../src/postgres-settlement-store.js'
import { migrateSettlementStore } from '../src/settlement-migrations.js'
import { buildClaim, describeSettlementStoreContract } from './settlement-store-contract.js'
import { closeTestDatabases, type TestDatabase, testDatabaseKinds } from './test-databases.js'

afterAll(closeTestDatabases)

for (const kind of testDatabaseKinds) {
  const opened: TestDatabase[] = []
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.cleanup()))
  })
  const open = async () => {
    const database = await kind.open()
    opened.push(database)
    return database
  }

  describeSettlementStoreContract(`createPostgresSettlementStore on ${kind.name}`, async () => {
    const { db, schema } = await open()
    return createPostgresSettlementStore({ db, schema })
  })

  describe(`createPostgresSettlementStore on ${kind.name}`, () => {
    test('behavior: migrations are versioned and idempotent', async () => {
      const { db, schema } = await open()
      await migrateSettlementStore(db, schema)
      await migrateSettlementStore(db, schema)
      const applied = await sql<{
        name: string
      }>`select name from ${sql.table(`${schema}.x402_settlement_migrations`)}`.execute(db)
      expect(applied.rows.map((r) => r.name)).toEqual(['0001-settlements'])
    })

    test('behavior: two stores (processes) on one database agree on one holder', async () => {
      const database = await open()
      const peer = await kind.openPeer(database)
      const a = await createPostgresSettlementStore({ db: database.db, schema: database.schema })
      const b = await createPostgresSettlementStore({ db: peer, schema: database.schema })
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).claim(buildClaim({ owner: `o${i}` }))),
      )
      expect(claims.filter((c) => c.claimed)).toHaveLength(1)
      if (peer !== database.db) {
        await peer.destroy()
      }
    })

    test('behavior: rejects a schema name that is not a plain identifier', async () => {
      const { db } = await open()
      await expect(createPostgresSettlementStore({ db, schema: 'x"; drop table y; --' })).rejects.toThrow(
        /invalid schema name/,
      )
    })
  })
}
