import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@tollgate/core'
import { type ColumnType, type Kysely, type Selectable, sql } from 'kysely'
import { assertIdentifier, migrateSettlementStore, SETTLEMENT_TABLE } from './settlement-migrations.js'
import {
  type ClaimSettlementParameters,
  type ClaimSettlementResult,
  type CompleteSettlementParameters,
  emptyStateCounts,
  type ReplaceTransactionParameters,
  type SettlementRecord,
  type SettlementState,
  type SettlementStateCounts,
  type SettlementStore,
} from './settlement-store.js'

type Json<T> = ColumnType<T, string, string>

/** The settlement table as Kysely sees it. */
export type SettlementTable = {
  key: string
  state: SettlementState
  scheme: string
  network: string
  fingerprint: string
  payment_payload: Json<PaymentPayload>
  payment_requirements: Json<PaymentRequirements>
  transaction: string | null
  result: ColumnType<SettleResponse | null, string | null, string | null>
  owner: string | null
  lease_until: Date
  attempts: ColumnType<number, number | undefined, number>
  delivered: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Date
  updated_at: Date
}

// Columns a successful claim reads back: everything but the payment it just wrote.
const CLAIM_COLUMNS = [
  'key',
  'state',
  'scheme',
  'network',
  'fingerprint',
  'transaction',
  'result',
  'owner',
  'lease_until',
  'attempts',
  'delivered',
  'created_at',
  'updated_at',
] as const
type ClaimedRow = Omit<Selectable<SettlementTable>, 'payment_payload' | 'payment_requirements'>

/** The tables of the settlement store. */
export type SettlementDatabase = { [SETTLEMENT_TABLE]: SettlementTable }

/** Options of {@link createPostgresSettlementStore}. */
export type PostgresSettlementStoreOptions<T> = {
  /** A Kysely instance on PostgreSQL or PGlite (see `openSettlementDatabase`). */
  db: Kysely<T>
  /** Schema holding the table (default `public`); tests use one schema per run. */
  schema?: string
  /** Apply pending migrations first (default true). */
  migrate?: boolean
}

/**
 * A durable {@link SettlementStore} on PostgreSQL or PGlite. The claim is one
 * `insert … on conflict do update … where <take-over allowed>` statement, so any number of
 * facilitator processes sharing the database agree on a single holder per settlement key.
 */
export async function createPostgresSettlementStore<T>(
  options: PostgresSettlementStoreOptions<T>,
): Promise<SettlementStore> {
  const schema = options.schema ?? 'public'
  assertIdentifier(schema)
  if (options.migrate !== false) {
    await migrateSettlementStore(options.db, schema)
  }
  const base = options.db as unknown as Kysely<SettlementDatabase>
  const db = base.withSchema(schema)
  const table = sql.table(`${schema}.${SETTLEMENT_TABLE}`)
  const held = (key: string, owner: string) =>
    db.updateTable(SETTLEMENT_TABLE).where('key', '=', key).where('owner', '=', owner)

  const completing = (p: CompleteSettlementParameters) =>
    held(p.key, p.owner).set({
      state: p.state,
      result: JSON.stringify(p.result),
      transaction: p.transaction ?? null,
      delivered: p.state === 'settled' && p.delivered !== false,
      owner: null,
      lease_until: new Date(p.now),
      updated_at: new Date(p.now),
    })

  // What `completing` writes, for several keys at once: the rows travel as one JSON parameter, so
  // the statement's text is the same for any number of them.
  const completingMany = (list: readonly CompleteSettlementParameters[]) => {
    const rows = list.map((p) => ({
      key: p.key,
      owner: p.owner,
      state: p.state,
      result: p.result,
      transaction: p.transaction ?? null,
      delivered: p.state === 'settled' && p.delivered !== false,
      at: new Date(p.now).toISOString(),
    }))
    return sql<{ key: string }>`update ${table} s
      set state = r.state, result = r.result, transaction = r.transaction, delivered = r.delivered,
        owner = null, lease_until = r.at, updated_at = r.at
      from json_to_recordset(${JSON.stringify(rows)}::json)
        as r (key text, owner text, state text, result jsonb, transaction text, delivered boolean,
          at timestamptz)
      where s.key = r.key and s.owner = r.owner
      returning s.key`
  }

  const store: SettlementStore = {
    async claim(p: ClaimSettlementParameters): Promise<ClaimSettlementResult> {
      const claimed = await insertOrTakeOver(base, table, p)
      if (claimed) {
        return { claimed: true, record: claimed }
      }
      const current = await store.get(p.key)
      if (!current) {
        // The row vanished between the two statements (deleted by hand); claim again.
        return store.claim(p)
      }
      return { claimed: false, record: current }
    },

    async renew(key, owner, leaseUntil) {
      const result = await held(key, owner)
        .set({ lease_until: new Date(leaseUntil) })
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async recordBroadcast(key, owner, transaction, now) {
      const result = await held(key, owner)
        .set({
          transaction,
          updated_at: new Date(now),
          state: sql<SettlementState>`case when state = 'claimed' then 'broadcast' else state end`,
        })
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async replaceTransaction(p: ReplaceTransactionParameters) {
      const now = new Date(p.now)
      const result = await db
        .updateTable(SETTLEMENT_TABLE)
        .set({
          transaction: p.to,
          owner: null,
          lease_until: sql<Date>`least(lease_until, ${now})`,
          updated_at: now,
        })
        .where('key', '=', p.key)
        .where('transaction', '=', p.from)
        .where('state', 'in', ['claimed', 'broadcast', 'pending'])
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async complete(p: CompleteSettlementParameters) {
      const result = await completing(p).executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async deliver(key, now) {
      const result = await db
        .updateTable(SETTLEMENT_TABLE)
        .set({ delivered: true, updated_at: new Date(now) })
        .where('key', '=', key)
        .where('state', '=', 'settled')
        .where('delivered', '=', false)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async returnDelivery(key, now) {
      await db
        .updateTable(SETTLEMENT_TABLE)
        .set({ delivered: false, updated_at: new Date(now) })
        .where('key', '=', key)
        .where('state', '=', 'settled')
        .execute()
    },

    joinable: {
      database: options.db,
      completeQuery: (p: CompleteSettlementParameters) => completing(p).returning('key'),
      completeManyQuery: (list: readonly CompleteSettlementParameters[]) => completingMany(list),
    },

    async get(key) {
      const row = await db.selectFrom(SETTLEMENT_TABLE).selectAll().where('key', '=', key).executeTakeFirst()
      return row ? toRecord(row) : undefined
    },

    async listReconcilable(now, limit) {
      const rows = await db
        .selectFrom(SETTLEMENT_TABLE)
        .selectAll()
        .where('state', 'in', ['claimed', 'broadcast', 'pending'])
        .where('lease_until', '<=', new Date(now))
        .orderBy('updated_at')
        .limit(limit)
        .execute()
      return rows.map(toRecord)
    },

    countByState: () => countByState(db),
  }
  return store
}

/**
 * The claim's one statement: inserts the row, or takes an existing row of the same payment over
 * when no live holder can still act on it. The claimed record, or `undefined` when someone else
 * holds the key (or the row belongs to another payment).
 */
async function insertOrTakeOver(
  base: Kysely<SettlementDatabase>,
  table: ReturnType<typeof sql.table>,
  p: ClaimSettlementParameters,
): Promise<SettlementRecord | undefined> {
  const now = new Date(p.now)
  const leaseUntil = new Date(p.now + p.leaseMs)
  // Take-over rule (same as the memory store): never an unexpired lease, never another
  // payment's row, and a failure only when nothing of it can be in flight.
  const { rows } = await sql<ClaimedRow>`
    insert into ${table} as s (key, state, scheme, network, fingerprint, payment_payload,
      payment_requirements, owner, lease_until, attempts, delivered, created_at, updated_at)
    values (${p.key}, 'claimed', ${p.scheme}, ${p.network}, ${p.fingerprint},
      ${JSON.stringify(p.paymentPayload)}, ${JSON.stringify(p.paymentRequirements)}, ${p.owner},
      ${leaseUntil}, 1, false, ${now}, ${now})
    on conflict (key) do update set
      owner = excluded.owner,
      lease_until = excluded.lease_until,
      attempts = s.attempts + 1,
      updated_at = excluded.updated_at,
      state = case when s.state = 'failed' then 'claimed' else s.state end,
      result = case when s.state = 'failed' then null else s.result end
    where s.fingerprint = excluded.fingerprint and (
      (s.state = 'failed' and s.transaction is null) or
      (s.state in ('claimed', 'broadcast', 'pending') and s.lease_until <= ${now}))
    returning ${sql.join(CLAIM_COLUMNS.map((c) => sql.ref(c)))}`.execute(base)
  const claimedRow = rows[0]
  // A claimed row holds this very payment (same fingerprint): no need to read it back.
  return claimedRow
    ? toRecord({
        ...claimedRow,
        payment_payload: p.paymentPayload,
        payment_requirements: p.paymentRequirements,
      })
    : undefined
}

/** How many settlements are in each state. */
async function countByState(db: Kysely<SettlementDatabase>): Promise<SettlementStateCounts> {
  const rows = await db
    .selectFrom(SETTLEMENT_TABLE)
    .select(['state', sql<number>`count(*)::int`.as('count')])
    .groupBy('state')
    .execute()
  const counts = emptyStateCounts()
  for (const row of rows) {
    counts[row.state] = Number(row.count)
  }
  return counts
}

function toRecord(row: Selectable<SettlementTable>): SettlementRecord {
  return {
    key: row.key,
    state: row.state,
    scheme: row.scheme,
    network: row.network,
    fingerprint: row.fingerprint,
    paymentPayload: row.payment_payload,
    paymentRequirements: row.payment_requirements,
    ...(row.transaction === null ? {} : { transaction: row.transaction }),
    ...(row.result === null ? {} : { result: row.result }),
    ...(row.owner === null ? {} : { owner: row.owner }),
    leaseUntil: new Date(row.lease_until).getTime(),
    attempts: row.attempts,
    delivered: row.delivered,
    createdAt: new Date(row.created_at).getTime(),
    updatedAt: new Date(row.updated_at).getTime(),
  }
}
