import { randomBytes } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createPgliteDialect } from './pglite-dialect.js'
import { scopeMigratorIntrospection } from './scope-migrator-introspection.js'
import { migrateSettlementStore } from './settlement-migrations.js'

const databaseUrl = process.env.TEST_DATABASE_URL
const name = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`

describe('scopeMigratorIntrospection (PGlite)', () => {
  test('behavior: lists only its own schema, and the migration still finds its tables there', async () => {
    const db = new Kysely<unknown>({ dialect: createPgliteDialect(new PGlite()) })
    try {
      await sql`create schema mine`.execute(db)
      await sql`create schema theirs`.execute(db)
      await sql`create table theirs.items (id serial primary key)`.execute(db)
      await sql`create table mine.things (id int)`.execute(db)
      const scoped = scopeMigratorIntrospection(db, 'mine').introspection
      expect((await scoped.getTables()).map((t) => `${t.schema}.${t.name}`)).toEqual(['mine.things'])
      expect((await scoped.getSchemas()).map((s) => s.name)).toEqual(['mine'])
      expect(await scopeMigratorIntrospection(db, 'absent').introspection.getSchemas()).toEqual([])
      // Without a schema it is the session's current one.
      const current = await scopeMigratorIntrospection(db).introspection.getTables()
      expect(current.every((t) => t.schema === 'public')).toBe(true)

      await migrateSettlementStore(db, 'mine')
      // A second run finds the bookkeeping tables through the scoped introspection: nothing to do.
      await migrateSettlementStore(db, 'mine')
      const { rows } = await sql<{ n: number }>`select count(*)::int as n
        from mine.x402_settlement_migrations`.execute(db)
      expect(rows[0]?.n).toBeGreaterThan(0)
    } finally {
      await db.destroy()
    }
  })
})

describe.skipIf(!databaseUrl)('scopeMigratorIntrospection (PostgreSQL)', () => {
  const mine = name('scope_mine')
  const dropped = name('scope_dropped')
  let admin: pg.Client
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
  })
  afterAll(async () => {
    await admin.query(`drop schema if exists ${mine} cascade`)
    await admin.query(`drop schema if exists ${dropped} cascade`)
    await admin.end()
  })

  test('edge: a schema another session drops mid-listing breaks Kysely’s introspector, not the scoped one', async () => {
    await admin.query(`create schema ${mine}`)
    await admin.query(`create schema ${dropped}`)
    await admin.query(`create table ${dropped}.items (id serial primary key)`)
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }) }),
    })
    try {
      // A repeatable-read snapshot taken before the drop still lists the dropped schema's table, as
      // a catalog scan running while the drop commits does; resolving its name then fails.
      const outcome = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await sql`select 1`.execute(trx)
          await admin.query(`drop schema ${dropped} cascade`)
          const scoped = await scopeMigratorIntrospection(trx, mine).introspection.getTables()
          const unscoped = await trx.introspection.getTables().then(
            () => 'listed',
            (error: { code?: string }) => error.code,
          )
          return { scoped, unscoped }
        })
      expect(outcome.scoped).toEqual([])
      expect(outcome.unscoped).toBe('3F000')
    } finally {
      await db.destroy()
    }
  })

  test('behavior: the settlement store migration reads no other schema', async () => {
    const queries: CompiledQuery[] = []
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 2 }) }),
      log: (event) => {
        queries.push(event.query)
      },
    })
    try {
      await migrateSettlementStore(db, mine)
      const catalogReads = queries.filter(
        (q) => q.sql.includes('pg_catalog') || q.sql.includes('pg_namespace'),
      )
      expect(catalogReads.length).toBeGreaterThan(0)
      for (const query of catalogReads) {
        expect(query.sql).not.toContain('pg_get_serial_sequence')
        expect(query.parameters).toContain(mine)
      }
    } finally {
      await db.destroy()
    }
  })
})
