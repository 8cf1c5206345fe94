// TEMPORARY shim until db/ (createDatabase, migrations) lands; replaced by a thin wrapper then.
import { PGlite } from '@electric-sql/pglite'
import { Kysely, type Migration, Migrator, PostgresDialect } from 'kysely'
import pg from 'pg'
import * as m0001 from './db/migrations/0001-merchants.js'
import type { MerchantsTables } from './db/schema/merchants.js'

/** The service database's tables. */
export interface Database extends MerchantsTables {}

/** Options of {@link openDatabase}: a PostgreSQL URL, else a PGlite data directory (in memory when omitted). */
export type OpenDatabaseOptions = { databaseUrl?: string | undefined; dataDir?: string | undefined }

/** An open, migrated database and how to close it. */
export type OpenedDatabase = { db: Kysely<Database>; close: () => Promise<void> }

/** Opens the service database (PostgreSQL or PGlite) and applies every migration. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  const db = options.databaseUrl
    ? new Kysely<Database>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: options.databaseUrl }) }),
      })
    : new Kysely<Database>({
        dialect: new PostgresDialect({ pool: createPglitePool(new PGlite(options.dataDir)) }),
      })
  const migrations: Record<string, Migration> = { '0001-merchants': m0001 }
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  }).migrateToLatest()
  if (error) {
    throw error
  }
  return { db, close: () => db.destroy() }
}

function createPglitePool(pglite: PGlite) {
  const client = {
    query: async (sql: string, params: unknown[]) => {
      const result = await pglite.query(sql, params)
      return {
        rows: result.rows,
        rowCount: result.affectedRows ?? result.rows.length,
        command: sql.trim().split(' ')[0]?.toUpperCase(),
      }
    },
    release: () => {},
  }
  return { connect: async () => client, end: async () => pglite.close() } as never
}

/** The databases every e2e test runs on: PGlite in memory (TEMPORARY until db/testing lands). */
export function getTestDatabases(): { name: string; create: () => Promise<OpenedDatabase> }[] {
  return [{ name: 'pglite', create: () => openDatabase({}) }]
}
