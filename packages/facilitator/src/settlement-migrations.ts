import { AppError } from '@tollgate/core'
import { type Kysely, type Migration, Migrator, sql } from 'kysely'
import { scopeMigratorIntrospection } from './scope-migrator-introspection.js'

/** Name of the settlement table (prefixed so it never collides with the service's own tables). */
export const SETTLEMENT_TABLE = 'x402_settlements'

/** Versioned migrations of the settlement store, in order; never edit one that shipped. */
function getMigrations(schema: string): Record<string, Migration> {
  return {
    '0001-settlements': {
      async up(db) {
        await db.schema
          .withSchema(schema)
          .createTable(SETTLEMENT_TABLE)
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('state', 'text', (c) =>
            c.notNull().check(sql`state in ('claimed', 'broadcast', 'pending', 'settled', 'failed')`),
          )
          .addColumn('scheme', 'text', (c) => c.notNull())
          .addColumn('network', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('payment_payload', 'jsonb', (c) => c.notNull())
          .addColumn('payment_requirements', 'jsonb', (c) => c.notNull())
          .addColumn('transaction', 'text')
          .addColumn('result', 'jsonb')
          .addColumn('owner', 'text')
          .addColumn('lease_until', 'timestamptz', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('created_at', 'timestamptz', (c) => c.notNull())
          .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
          .execute()
        // The reconciler and the pending gauge only look at unfinished rows; keep that index small.
        await db.schema
          .withSchema(schema)
          .createIndex(`${SETTLEMENT_TABLE}_unfinished`)
          .on(SETTLEMENT_TABLE)
          .columns(['state', 'lease_until'])
          .where(sql.ref('state'), 'in', ['claimed', 'broadcast', 'pending'])
          .execute()
      },
    },
    // One payment, one delivery (docs/security.md): whether a caller was answered the success.
    // Rows settled before this column existed were answered when they settled.
    '0002-delivered': {
      async up(db) {
        await db.schema
          .withSchema(schema)
          .alterTable(SETTLEMENT_TABLE)
          .addColumn('delivered', 'boolean', (c) => c.notNull().defaultTo(true))
          .execute()
        await db.schema
          .withSchema(schema)
          .alterTable(SETTLEMENT_TABLE)
          .alterColumn('delivered', (c) => c.setDefault(false))
          .execute()
      },
    },
  }
}

/**
 * Creates `schema` if needed and applies the settlement store's pending migrations (tracked in
 * `x402_settlement_migrations`; concurrent starters are serialized by Kysely's migration lock).
 */
export async function migrateSettlementStore<T>(db: Kysely<T>, schema = 'public'): Promise<void> {
  assertIdentifier(schema)
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db)
  const migrator = new Migrator({
    db: scopeMigratorIntrospection(db, schema),
    migrationTableSchema: schema,
    migrationTableName: 'x402_settlement_migrations',
    migrationLockTableName: 'x402_settlement_migrations_lock',
    provider: { getMigrations: async () => getMigrations(schema) },
  })
  const { error } = await migrator.migrateToLatest()
  if (error) {
    throw new AppError('settlement_store_failed', {
      message: 'settlement store migration failed',
      cause: error,
    })
  }
}

/** Throws unless `name` is a plain lower-case SQL identifier (schema names are spliced into SQL). */
export function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new AppError('invalid_request', {
      context: { issues: { schema: 'must be a lower-case SQL identifier' } },
      message: `invalid schema name "${name}"`,
    })
  }
}
