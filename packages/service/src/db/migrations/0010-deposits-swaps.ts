import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table swap_quotations (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    from_currency text not null,
    to_currency text not null,
    source_amount numeric(78, 0) not null check (source_amount > 0),
    -- What the merchant receives, at the quoted rate (rounded down).
    target_amount numeric(78, 0) not null check (target_amount > 0),
    -- The spread in the target currency: the reference-rate conversion minus target_amount.
    fee numeric(78, 0) not null check (fee >= 0),
    rate text not null,
    reference_rate text not null,
    expires_at timestamptz not null,
    -- Set once, by the one execution that wins the conditional UPDATE (docs/swaps.md).
    executed_at timestamptz,
    created_at timestamptz not null,
    check (from_currency <> to_currency)
  )`,
  sql`create index swap_quotations_merchant_idx on swap_quotations (merchant_id, environment, created_at desc)`,
  sql`create table swaps (
    id text primary key,
    seq bigint generated always as identity,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    quotation_id text not null unique references swap_quotations (id),
    from_currency text not null,
    to_currency text not null,
    source_amount numeric(78, 0) not null check (source_amount > 0),
    target_amount numeric(78, 0) not null check (target_amount > 0),
    fee numeric(78, 0) not null check (fee >= 0),
    rate text not null,
    status text not null check (status in ('completed')),
    -- The ledger transaction is found by its idempotency key swap:{quotation_id} (docs/swaps.md).
    webhook_url text,
    response_format text not null check (response_format in ('current', 'legacy')),
    created_at timestamptz not null,
    completed_at timestamptz
  )`,
  sql`create index swaps_list_idx on swaps (merchant_id, environment, seq desc)`,
]

/** Creates the swap quotations and swaps (see `db/schema/deposits-swaps.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops what {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['swaps', 'swap_quotations']) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
}
