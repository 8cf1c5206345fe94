import { type Kysely, sql } from 'kysely'

// The provider-side state of the sandbox fiat providers and FX table (see docs/rails-fiat.md): kept
// in the database so it survives restarts and every process of one deployment sees the same state.
// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table sandbox_fx_rates (
    currency text primary key,
    -- USD value of one unit as an exact fraction (a rate set as 1550 NGN per USD is 1/1550).
    usd_numerator numeric(78,0) not null check (usd_numerator > 0),
    usd_denominator numeric(78,0) not null check (usd_denominator > 0),
    spread_bps integer not null check (spread_bps between 0 and 1000),
    updated_at timestamptz not null
  )`,
  sql`create table sandbox_fiat_transfers (
    -- Our id, which is also the provider's idempotency key.
    id text primary key,
    rail text not null check (rail in ('bank', 'mobile_money')),
    provider_reference text not null unique,
    merchant_id text,
    currency text not null,
    amount numeric(78,0) not null check (amount > 0),
    account_number text not null,
    account_name text not null,
    institution_code text not null,
    institution_name text not null,
    narration text not null,
    status text not null check (status in ('processing', 'success', 'failed')),
    -- What the simulated callback will report, chosen from the account number at creation.
    planned_outcome text not null check (planned_outcome in ('success', 'failed', 'held')),
    failure_reason text,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    completed_at timestamptz
  )`,
  sql`create table sandbox_virtual_accounts (
    -- Our id (the deposit identity), which is also the provider's idempotency key.
    account_reference text primary key,
    merchant_id text,
    environment text check (environment in ('test', 'live')),
    -- SHA-256 of the BVN: enough to answer a repeated create, and no BVN at rest.
    bvn_hash text not null,
    account_number text not null unique,
    account_name text not null,
    bank_code text not null,
    bank_name text not null,
    created_at timestamptz not null
  )`,
  sql`create table sandbox_inbound_transfers (
    id text primary key,
    account_reference text not null references sandbox_virtual_accounts (account_reference),
    environment text not null check (environment in ('test', 'live')),
    amount numeric(78,0) not null check (amount > 0),
    currency text not null,
    -- The provider's session reference: one inbound transfer (and one delivery) per reference.
    reference text not null unique,
    payer_account_name text not null,
    payer_account_number text not null,
    payer_bank_name text not null,
    payer_bank_code text not null,
    received_at timestamptz not null
  )`,
  sql`create index sandbox_inbound_transfers_account_idx on sandbox_inbound_transfers (account_reference, received_at)`,
]

/** Creates the sandbox FX table and the fiat providers' state (see `db/schema/rails-fiat.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'sandbox_inbound_transfers',
    'sandbox_virtual_accounts',
    'sandbox_fiat_transfers',
    'sandbox_fx_rates',
  ]) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
}
