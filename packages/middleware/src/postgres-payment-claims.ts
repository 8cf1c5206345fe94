import { AppError } from '@tollgate/core'
import type { PaymentClaimStore } from './payment-claims.js'

/**
 * What {@link createPostgresPaymentClaims} needs of a database client: `query(text, values)`
 * answering `{ rows }`. A `pg` Pool or Client and a PGlite instance fit as they are.
 */
export type PaymentClaimsQueryable = {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
}

/** Options of {@link createPostgresPaymentClaims}. */
export type PostgresPaymentClaimsOptions = {
  client: PaymentClaimsQueryable
  /** Table holding the claims (created if missing); default `x402_payment_claims`. */
  table?: string
}

const PRUNE_EVERY_MS = 60_000

/**
 * A {@link PaymentClaimStore} in PostgreSQL (or PGlite), shared by every instance of the merchant
 * on one database: a claim is one `insert … on conflict do update … where expired` statement, so of
 * any number of concurrent requests carrying one payment exactly one holds it. Expired rows are
 * deleted at most once a minute per process.
 */
export async function createPostgresPaymentClaims(
  options: PostgresPaymentClaimsOptions,
): Promise<PaymentClaimStore> {
  const { client } = options
  const table = options.table ?? 'x402_payment_claims'
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) {
    throw new AppError('middleware_config_invalid', {
      message: `invalid payment claims table "${table}": a lower-case SQL identifier is required`,
    })
  }
  await client.query(
    `create table if not exists ${table} (key text primary key, expires_at timestamptz not null)`,
  )
  let nextPrune = 0
  return {
    async claim(key, expiresAt, now) {
      if (now >= nextPrune) {
        nextPrune = now + PRUNE_EVERY_MS
        await client.query(`delete from ${table} where expires_at <= $1`, [new Date(now)])
      }
      const { rows } = await client.query(
        `insert into ${table} as c (key, expires_at) values ($1, $2)
         on conflict (key) do update set expires_at = excluded.expires_at where c.expires_at <= $3
         returning key`,
        [key, new Date(expiresAt), new Date(now)],
      )
      return rows.length === 1
    },
    async release(key) {
      await client.query(`delete from ${table} where key = $1`, [key])
    },
  }
}
