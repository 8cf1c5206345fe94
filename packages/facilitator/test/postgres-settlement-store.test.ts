import { type RawBuilder, sql } from 'kysely'
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
      expect(applied.rows.map((r) => r.name)).toEqual(['0001-settlements', '0002-delivered'])
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

    test('behavior: completeManyQuery writes each outcome whose owner still holds its key, in one statement', async () => {
      const { db, schema } = await open()
      const store = await createPostgresSettlementStore({ db, schema })
      for (const key of ['k1', 'k2', 'k3']) {
        await store.claim(buildClaim({ key, owner: `owner-${key}` }))
      }
      const result = (transaction: string) => ({ success: true, transaction, network: 'eip155:84532' })
      const parameters = (key: string, owner: string) =>
        ({
          key,
          owner,
          state: 'settled',
          result: result(`0x${key}`),
          transaction: `0x${key}`,
          now: 5_000,
        }) as const
      const query = store.joinable?.completeManyQuery([
        parameters('k1', 'owner-k1'),
        parameters('k2', 'owner-k2'),
        // k3 was taken over: this owner no longer holds it, so nothing of it is written.
        parameters('k3', 'someone else'),
      ]) as RawBuilder<{ key: string }>
      const { rows } = await query.execute(db)
      expect(rows.map((r) => r.key).sort()).toEqual(['k1', 'k2'])
      const records = await Promise.all(['k1', 'k2', 'k3'].map((key) => store.get(key)))
      expect(records.map((r) => [r?.state, r?.transaction, r?.owner, r?.result?.transaction])).toEqual([
        ['settled', '0xk1', undefined, '0xk1'],
        ['settled', '0xk2', undefined, '0xk2'],
        ['claimed', undefined, 'owner-k3', undefined],
      ])
      expect(records[0]?.leaseUntil).toBe(5_000)
      // The text is the same for one write or three: one prepared statement for any batch.
      const one = store.joinable?.completeManyQuery([parameters('k3', 'owner-k3')]) as RawBuilder<unknown>
      expect(one.compile(db).sql).toBe(query.compile(db).sql)
    })

    test('behavior: rejects a schema name that is not a plain identifier', async () => {
      const { db } = await open()
      await expect(createPostgresSettlementStore({ db, schema: 'x"; drop table y; --' })).rejects.toThrow(
        /invalid schema name/,
      )
    })
  })
}
