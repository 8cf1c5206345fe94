import { mkdir } from 'node:fs/promises'
import { PGlite, types } from '@electric-sql/pglite'
import { createPgliteDialect, lockDataDirectory, withPreparedStatements } from '@tollgate/facilitator'
import { Kysely, type LogEvent, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './database.js'
import { migrateToLatest } from './migrations/index.js'
import { createPgliteNotifications, createPgNotifications, type Notifications } from './notifications.js'

/**
 * Options of {@link openDatabase}: a PostgreSQL URL, else a PGlite data directory (in memory when
 * omitted). `schema` puts every table in that schema (created if missing; PostgreSQL only), which
 * is how parallel test files share one server. `poolSize` is the PostgreSQL pool size (default 10).
 */
export type OpenDatabaseOptions = {
  databaseUrl?: string | undefined
  dataDir?: string | undefined
  schema?: string | undefined
  poolSize?: number | undefined
  /**
   * Data statements kept as named prepared statements per connection (PostgreSQL) or in the session
   * (PGlite), least recently used closed first: default 100, 0 prepares none (docs/production.md).
   */
  preparedStatements?: number | undefined
  /** Called with the SQL of every statement run (BEGIN and COMMIT included): statement-count tests. */
  onQuery?: ((sql: string) => void) | undefined
}

/** An open, migrated database, which engine it runs on, its LISTEN/NOTIFY, and how to close it. */
export type OpenedDatabase = {
  db: Kysely<Database>
  engine: 'pglite' | 'postgres'
  /** Wake-ups of the job runner (docs/jobs.md): a LISTEN connection on a server, in process on PGlite. */
  notifications: Notifications
  close: () => Promise<void>
}

/**
 * Opens the service database (PostgreSQL when `databaseUrl` is set, else embedded PGlite) and
 * applies every pending migration. Both run the same SQL through Kysely and return the same
 * JavaScript types (NUMERIC and BIGINT as strings, timestamps as `Date`).
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  const opened = options.databaseUrl ? openPostgres(options.databaseUrl, options) : await openPglite(options)
  try {
    await migrateToLatest(opened.db as Kysely<unknown>, options.schema ? { schema: options.schema } : {})
  } catch (error) {
    await opened.close()
    throw error
  }
  return opened
}

function openPostgres(databaseUrl: string, options: OpenDatabaseOptions): OpenedDatabase {
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) {
    throw new Error(`Invalid schema name ${options.schema}`)
  }
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  })
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: withPreparedStatements(pool, preparedOption(options)) }),
    ...toLog(options),
  })
  const notifications = createPgNotifications(databaseUrl)
  const close = async () => {
    await notifications.close()
    await db.destroy()
  }
  return { db, engine: 'postgres', notifications, close }
}

async function openPglite(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  if (options.schema !== undefined) {
    throw new Error('schema is only supported on PostgreSQL')
  }
  let lock: Awaited<ReturnType<typeof lockDataDirectory>> | undefined
  if (options.dataDir !== undefined) {
    await mkdir(options.dataDir, { recursive: true })
    // One process per data directory (docs/service.md): a second opener is refused, naming the holder.
    lock = await lockDataDirectory(options.dataDir)
  }
  // pg returns BIGINT as a string; PGlite would return a number. Match pg so code sees one type.
  const pglite = new PGlite({
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    parsers: { [types.INT8]: (value: string) => value },
  })
  const db = new Kysely<Database>({
    dialect: createPgliteDialect(pglite, {
      ...(lock ? { onClose: lock.release } : {}),
      ...(options.preparedStatements === undefined ? {} : { preparedStatements: options.preparedStatements }),
    }),
    ...toLog(options),
  })
  const notifications = createPgliteNotifications(pglite, db as Kysely<unknown>)
  const close = async () => {
    await notifications.close()
    await db.destroy()
  }
  return { db, engine: 'pglite', notifications, close }
}

function preparedOption(options: OpenDatabaseOptions): { max?: number } {
  return options.preparedStatements === undefined ? {} : { max: options.preparedStatements }
}

function toLog(options: OpenDatabaseOptions): { log?: (event: LogEvent) => void } {
  const { onQuery } = options
  return onQuery ? { log: (event) => event.level === 'query' && onQuery(event.query.sql) } : {}
}
