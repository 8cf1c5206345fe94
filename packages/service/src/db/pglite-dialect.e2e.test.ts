import { PGlite } from '@electric-sql/pglite'
import { createPgliteDialect } from '@tollgate/facilitator'
import { Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Database } from './database.js'
import { type OpenedDatabase, openDatabase } from './open-database.js'

describe('createPgliteDialect', () => {
  let opened: OpenedDatabase
  let db: Kysely<Database>
  const rows = async () =>
    (await sql<{ v: string }>`select v from scratch order by v`.execute(db)).rows.map((r) => r.v)
  beforeAll(async () => {
    opened = await openDatabase({})
    db = opened.db
    await sql`create table scratch (v text primary key)`.execute(db)
  })
  afterAll(async () => {
    await opened.close()
  })

  test('default: concurrent transactions run one after the other; a rollback never takes the other with it', async () => {
    const events: string[] = []
    const failing = db.transaction().execute(async (trx) => {
      events.push('t1 begin')
      await sql`insert into scratch values ('t1')`.execute(trx)
      await new Promise((resolve) => setTimeout(resolve, 50))
      events.push('t1 fail')
      throw new Error('t1 rolls back')
    })
    const succeeding = db.transaction().execute(async (trx) => {
      events.push('t2 begin')
      await sql`insert into scratch values ('t2')`.execute(trx)
      events.push('t2 commit')
    })
    const plain = db
      .insertInto('idempotency_keys')
      .values([])
      .execute()
      .catch(() => 'no rows')
    await expect(failing).rejects.toThrow('t1 rolls back')
    await succeeding
    await plain
    expect(events).toEqual(['t1 begin', 't1 fail', 't2 begin', 't2 commit'])
    expect(await rows()).toEqual(['t2'])
  })

  test('behavior: savepoints roll back part of a transaction', async () => {
    const trx = await db.startTransaction().execute()
    await sql`insert into scratch values ('sp-kept')`.execute(trx)
    const inner = await trx.savepoint('inner').execute()
    await sql`insert into scratch values ('sp-dropped')`.execute(inner)
    const back = await inner.rollbackToSavepoint('inner').execute()
    await back.commit().execute()
    expect(await rows()).toEqual(['sp-kept', 't2'])
  })

  test('behavior: NUMERIC and BIGINT come back as strings, as with pg', async () => {
    const result = await sql<{ n: string; b: string; c: string }>`
      select 123456789012345678901234567890::numeric(78,0) as n, 9007199254740993::bigint as b, count(*) as c
      from scratch`.execute(db)
    expect(result.rows[0]).toEqual({ n: '123456789012345678901234567890', b: '9007199254740993', c: '2' })
  })

  test('behavior: close waits for the transaction holding the connection', async () => {
    const other = new Kysely<Database>({ dialect: createPgliteDialect(new PGlite()) })
    const events: string[] = []
    let began: () => void = () => {}
    const holding = new Promise<void>((resolve) => {
      began = resolve
    })
    const running = other.transaction().execute(async (trx) => {
      began()
      await new Promise((resolve) => setTimeout(resolve, 30))
      await sql`select 1`.execute(trx)
      events.push('transaction done')
    })
    await holding
    await other.destroy()
    events.push('closed')
    await running
    expect(events).toEqual(['transaction done', 'closed'])
  })

  test('behavior: the cached plans are dropped every `replanEvery` data statements, inside a transaction too', async () => {
    // PGlite runs no autovacuum, so nothing else would ever make a prepared statement's generic plan
    // again as its tables grow (docs/x402-merchant.md "Benchmark").
    const pglite = new PGlite()
    const simpleQueries: string[] = []
    const exec = pglite.execProtocolStream.bind(pglite)
    pglite.execProtocolStream = (message, options) => {
      // A simple-protocol Query message: 'Q', its length, the text ending in a NUL.
      if (message[0] === 0x51) {
        simpleQueries.push(new TextDecoder().decode(message.subarray(5, message.length - 1)))
      }
      return exec(message, options)
    }
    const replanning = new Kysely<Database>({ dialect: createPgliteDialect(pglite, { replanEvery: 3 }) })
    try {
      await sql`create table counted (id int primary key)`.execute(replanning)
      await replanning.transaction().execute(async (trx) => {
        for (const id of [1, 2, 3, 4, 5]) {
          await sql`insert into counted values (${id})`.execute(trx)
        }
      })
      const ids = async () =>
        (await sql<{ id: number }>`select id from counted order by id`.execute(replanning)).rows.map(
          (r) => r.id,
        )
      expect(await ids()).toEqual([1, 2, 3, 4, 5])
      expect(await ids()).toEqual([1, 2, 3, 4, 5])
      // Seven data statements: the plans were dropped before the 4th and the 7th.
      expect(simpleQueries.filter((text) => text === 'discard plans')).toHaveLength(2)
    } finally {
      await replanning.destroy()
    }
  })

  test('behavior: a prepared statement serializes parameters by type and sees a schema change', async () => {
    // Two statements stay prepared, so the third evicts the first (and it is prepared again).
    const small = new Kysely<Database>({
      dialect: createPgliteDialect(new PGlite(), { preparedStatements: 2 }),
    })
    try {
      await sql`create table typed (id int primary key, at timestamptz, doc jsonb, flag boolean, n numeric)`.execute(
        small,
      )
      const insert = (id: number, db: Kysely<Database> = small) =>
        sql`insert into typed values (${id}, ${new Date('2026-11-28T05:00:00Z')}, ${JSON.stringify({ a: id })}, ${id % 2 === 0}, ${BigInt(id) * 10n ** 20n})`.execute(
          db,
        )
      const all = async () =>
        (await sql<Record<string, unknown>>`select * from typed order by id`.execute(small)).rows
      for (const id of [1, 2]) {
        await insert(id)
      }
      expect(await all()).toEqual([
        {
          id: 1,
          at: new Date('2026-11-28T05:00:00Z'),
          doc: { a: 1 },
          flag: false,
          n: '100000000000000000000',
        },
        {
          id: 2,
          at: new Date('2026-11-28T05:00:00Z'),
          doc: { a: 2 },
          flag: true,
          n: '200000000000000000000',
        },
      ])
      await sql`select ${null}::text as nothing, ${'x'}::text as x`.execute(small)
      await insert(3)
      // `select *` was prepared before the column was added; it answers the new shape.
      await sql`alter table typed add column note text`.execute(small)
      expect((await all()).map((row) => [row.id, row.note])).toEqual([
        [1, null],
        [2, null],
        [3, null],
      ])
      // At most two stay prepared: the last `select *` and this one. Sorted by text: PGlite's
      // clock counts milliseconds, so two statements prepared in one tie on `prepare_time`.
      const prepared = await sql<{
        statement: string
      }>`select statement from pg_prepared_statements order by statement`.execute(small)
      expect(prepared.rows.map((row) => row.statement)).toEqual([
        'select * from typed order by id',
        'select statement from pg_prepared_statements order by statement',
      ])
      await expect(insert(3)).rejects.toMatchObject({ code: '23505', table: 'typed' })
      const trx = await small.startTransaction().execute()
      await expect(insert(1, trx)).rejects.toMatchObject({ code: '23505' })
      await trx.rollback().execute()
      expect((await all()).length).toBe(3)
    } finally {
      await small.destroy()
    }
  })
})
