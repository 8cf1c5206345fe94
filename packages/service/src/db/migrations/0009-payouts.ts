import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  // Per-merchant daily payout limit in micro-USD; null = the settings default (docs/payouts.md).
  sql`alter table merchants add column payout_daily_limit numeric(78, 0)`,
  sql`create table recipients (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    type text not null check (type in ('crypto_address', 'ngn_bank_account', 'kes_mobile_money', 'ghs_mobile_money')),
    label text not null,
    is_default boolean not null default false,
    is_trusted boolean not null default false,
    is_temporary boolean not null default false,
    customer_id text references customers (id),
    notes text,
    -- Unmasked details as resolved (account numbers are masked only in responses).
    details jsonb not null,
    -- Identity of the destination (type, institution, account) that makes two recipients the same.
    fingerprint text not null,
    -- Lower-cased holder name, institution and label for the free-text search.
    search_text text not null,
    deleted_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  sql`create unique index recipients_fingerprint_idx on recipients (merchant_id, environment, fingerprint)
    where deleted_at is null`,
  sql`create unique index recipients_default_idx on recipients (merchant_id, environment, type)
    where is_default and deleted_at is null`,
  sql`create index recipients_list_idx on recipients (merchant_id, environment, created_at desc)`,
  sql`create table payout_quotes (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    currency text not null,
    source_currency text not null,
    source_amount numeric(78, 0) not null check (source_amount > 0),
    target_amount numeric(78, 0) not null check (target_amount > 0),
    rate text not null,
    fee numeric(78, 0) not null check (fee >= 0),
    expires_at timestamptz not null,
    payout_id text,
    used_at timestamptz,
    created_at timestamptz not null
  )`,
  sql`create table payouts (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    reference text not null,
    request_hash text not null,
    method text not null check (method in ('fiat', 'crypto')),
    kind text not null check (kind in ('local_fiat', 'crypto', 'cross_border')),
    status text not null check (status in ('pending', 'processing', 'success', 'failed')),
    currency text not null,
    amount numeric(78, 0) not null check (amount > 0),
    fee numeric(78, 0) not null check (fee >= 0),
    total numeric(78, 0) not null,
    target_currency text not null,
    target_amount numeric(78, 0) not null,
    rate text,
    narration text not null,
    recipient_id text not null references recipients (id),
    recipient jsonb not null,
    channel text not null,
    tx_hash text,
    failure_reason text,
    completed_at timestamptz,
    quote_id text references payout_quotes (id),
    webhook_url text,
    response_format text not null check (response_format in ('current', 'legacy')),
    ledger_transaction_id text,
    usd_equivalent numeric(78, 0) not null,
    usage_day text not null,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    check (total = amount + fee)
  )`,
  // A reference is a permanent idempotency key per merchant and environment.
  sql`create unique index payouts_reference_idx on payouts (merchant_id, environment, reference)`,
  sql`create index payouts_list_idx on payouts (merchant_id, environment, created_at desc)`,
  sql`create index payouts_tx_hash_idx on payouts (tx_hash) where tx_hash is not null`,
  // Payouts of one merchant per UTC day in micro-USD, reserved atomically against the daily limit.
  sql`create table payout_daily_usage (
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    day text not null,
    used numeric(78, 0) not null check (used >= 0),
    primary key (merchant_id, environment, day)
  )`,
]

/** Creates `recipients`, `payout_quotes`, `payouts`, `payout_daily_usage` (see `db/schema/payouts.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops what {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['payout_daily_usage', 'payouts', 'payout_quotes', 'recipients']) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
  await sql`alter table merchants drop column payout_daily_limit`.execute(db)
}
