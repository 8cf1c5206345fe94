import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`alter table merchants add column business_name text`,
  sql`alter table merchants add column logo_url text`,
  // Cross-border payouts are for verified businesses only; the CLI sets the flag, the sandbox merchant has it.
  sql`alter table merchants add column verified boolean not null default false`,
  sql`create table customers (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    email text,
    first_name text,
    last_name text,
    phone text,
    telegram_id text,
    metadata jsonb not null default '{}'::jsonb,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  // A merchant's customers are matched by e-mail (case-insensitive) so sessions reuse them.
  sql`create unique index customers_email_idx on customers (merchant_id, environment, lower(email))
    where email is not null`,
  sql`create index customers_list_idx on customers (merchant_id, environment, created_at desc)`,
]

/** Adds merchant profile columns and the `customers` table (see `db/schema/customers.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops what {@link up} added. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table customers`.execute(db)
  for (const column of ['business_name', 'logo_url', 'verified']) {
    await sql`alter table merchants drop column ${sql.ref(column)}`.execute(db)
  }
}
