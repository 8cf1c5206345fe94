import { randomBytes } from 'node:crypto'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { withPreparedStatements } from './pg-prepared-statements.js'

// On a real PostgreSQL server only (TEST_DATABASE_URL): the pool's connections keep data statements
// prepared, bounded, and never run a stale `select *` after a schema change.
const databaseUrl = process.env.TEST_DATABASE_URL

describe.skipIf(!databaseUrl)('withPreparedStatements (PostgreSQL)', () => {
  const schema = `prep_${randomBytes(4).toString('hex')}`
  const open = (max?: number) => {
    // One connection, so every statement meets the same server session.
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, options: `-c search_path=${schema}` })
    return new Kysely<Record<string, Record<string, unknown>>>({
      dialect: new PostgresDialect({ pool: withPreparedStatements(pool, max === undefined ? {} : { max }) }),
    })
  }
  const prepared = async (db: Kysely<Record<string, Record<string, unknown>>>) =>
    (
      await sql<{
        statement: string
      }>`select statement from pg_prepared_statements order by prepare_time`.execute(db)
    ).rows.map((r) => r.statement)

  let admin: pg.Client
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    await admin.query(`create schema ${schema}`)
    await admin.query(`create table ${schema}.items (id int primary key, name text)`)
    await admin.query(`insert into ${schema}.items values (1, 'one'), (2, 'two')`)
  })
  afterAll(async () => {
    await admin.query(`drop schema if exists ${schema} cascade`)
    await admin.end()
  })

  test('default: a data statement is prepared once per connection and runs again by name', async () => {
    const db = open()
    try {
      const byId = (id: number) =>
        db.selectFrom('items').select('name').where('id', '=', id).executeTakeFirst()
      expect(await byId(1)).toEqual({ name: 'one' })
      expect(await byId(2)).toEqual({ name: 'two' })
      // The listing itself is a select too, so it is prepared as well.
      const statements = await prepared(db)
      expect(statements.filter((s) => s.includes('from "items"'))).toHaveLength(1)
    } finally {
      await db.destroy()
    }
  })

  test('behavior: at most max statements stay prepared; the least recently used is closed', async () => {
    const db = open(2)
    try {
      await sql`select 1 as a`.execute(db)
      await sql`select 2 as b`.execute(db)
      await sql`select 1 as a`.execute(db)
      await sql`select 3 as c`.execute(db)
      // The listing is the third distinct statement: `select 2` (least recently used) and then
      // `select 1` were closed to make room.
      const statements = await prepared(db)
      expect(statements).toHaveLength(2)
      expect(statements).toContain('select 3 as c')
      expect(statements.join()).not.toMatch(/select 2 as b/)
    } finally {
      await db.destroy()
    }
  })

  test('behavior: 0 prepares nothing (unnamed statements)', async () => {
    const db = open(0)
    try {
      await db.selectFrom('items').selectAll().execute()
      expect(await prepared(db)).toEqual([])
    } finally {
      await db.destroy()
    }
  })

  test('behavior: a `select *` sees the new column after an alter, through the pool or by another session', async () => {
    const db = open()
    try {
      const all = () => db.selectFrom('items').selectAll().where('id', '=', 1).executeTakeFirst()
      expect(await all()).toEqual({ id: 1, name: 'one' })
      await sql`alter table items add column note text`.execute(db)
      expect(await all()).toEqual({ id: 1, name: 'one', note: null })
      // Another session's migration: the prepared statement fails once with "cached plan must not
      // change result type", is prepared again and, outside a transaction, run again at once.
      await admin.query(`alter table ${schema}.items add column extra int`)
      expect(await all()).toEqual({ id: 1, name: 'one', note: null, extra: null })
    } finally {
      await db.destroy()
    }
  })
})
