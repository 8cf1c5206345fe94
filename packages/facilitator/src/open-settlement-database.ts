import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { createPgliteDialect } from './pglite-dialect.js'
import type { SettlementDatabase } from './postgres-settlement-store.js'

/** Options of {@link openSettlementDatabase}. */
export type OpenSettlementDatabaseOptions = {
  /** A PostgreSQL URL; when set, PGlite is not used. */
  databaseUrl?: string
  /** PGlite data directory (created if missing); omitted = in memory. */
  dataDir?: string
  /** PostgreSQL pool size (default 10). */
  poolSize?: number
  /** Called with errors of idle pooled connections (a server restart), instead of crashing. */
  onPoolError?: (error: Error) => void
}

/**
 * Opens the facilitator's database: PostgreSQL through `pg` when `databaseUrl` is given, else an
 * embedded PGlite (in a data directory, or in memory). Close it with `db.destroy()`.
 */
export async function openSettlementDatabase(
  options: OpenSettlementDatabaseOptions = {},
): Promise<Kysely<SettlementDatabase>> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 })
    pool.on('error', (error) => options.onPoolError?.(error))
    return new Kysely<SettlementDatabase>({ dialect: new PostgresDialect({ pool }) })
  }
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true })
  }
  const pglite = options.dataDir ? new PGlite(options.dataDir) : new PGlite()
  return new Kysely<SettlementDatabase>({ dialect: createPgliteDialect(pglite) })
}
