import { type Kysely, sql } from 'kysely'

/** Creates `merchants`, `api_keys` and `idempotency_keys` (see `db/schema/merchants.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('merchant_id', 'text', (col) => col.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull().defaultTo('current'))
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('prefix', 'text', (col) => col.notNull())
    .addColumn('label', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addCheckConstraint('api_keys_environment_check', sql`environment in ('test', 'live')`)
    .addCheckConstraint('api_keys_format_check', sql`format in ('current', 'legacy')`)
    .execute()
  await db.schema.createIndex('api_keys_merchant_idx').on('api_keys').column('merchant_id').execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('merchant_id', 'text', (col) => col.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('method', 'text', (col) => col.notNull())
    .addColumn('path', 'text', (col) => col.notNull())
    .addColumn('request_hash', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['merchant_id', 'environment', 'key'])
    .addCheckConstraint('idempotency_keys_state_check', sql`state in ('in_progress', 'completed')`)
    .execute()
  await db.schema
    .createIndex('idempotency_keys_expires_idx')
    .on('idempotency_keys')
    .column('expires_at')
    .execute()
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute()
  await db.schema.dropTable('api_keys').execute()
  await db.schema.dropTable('merchants').execute()
}
