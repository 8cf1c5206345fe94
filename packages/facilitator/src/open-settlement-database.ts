import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { lockDataDirectory } from './lock-data-directory.js'
import { withPreparedStatements } from './pg-prepared-statements.js'
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
  /**
   * Data statements kept prepared per connection (PostgreSQL) or in the session (PGlite), least
   * recently used closed first (default 100); 0 prepares none.
   */
  preparedStatements?: number
}

/**
 * Opens the facilitator's database: PostgreSQL through `pg` when `databaseUrl` is given, else an
 * embedded PGlite (in a data directory, or in memory). A data directory is locked to this process
 * (`lockDataDirectory`: a second opener gets `data_directory_locked`) until `db.destroy()`.
 */
export async function openSettlementDatabase(
  options: OpenSettlementDatabaseOptions = {},
): Promise<Kysely<SettlementDatabase>> {
  const prepared = options.preparedStatements === undefined ? {} : { max: options.preparedStatements }
  const pglitePrepared =
    options.preparedStatements === undefined ? {} : { preparedStatements: options.preparedStatements }
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 })
    pool.on('error', (error) => options.onPoolError?.(error))
    return new Kysely<SettlementDatabase>({
      dialect: new PostgresDialect({ pool: withPreparedStatements(pool, prepared) }),
    })
  }
  if (!options.dataDir) {
    return new Kysely<SettlementDatabase>({ dialect: createPgliteDialect(new PGlite(), pglitePrepared) })
  }
  await mkdir(options.dataDir, { recursive: true })
  const lock = await lockDataDirectory(options.dataDir)
  const db = new Kysely<SettlementDatabase>({
    dialect: createPgliteDialect(new PGlite(options.dataDir), { onClose: lock.release, ...pglitePrepared }),
  })
  // Kysely starts its driver on the first query and `destroy()` skips a driver never started, so
  // start it now: destroy then always closes PGlite and releases the lock.
  await sql`select 1`.execute(db)
  return db
}
