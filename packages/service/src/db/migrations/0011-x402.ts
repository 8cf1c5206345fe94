import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table x402_transactions (
    id text primary key,
    seq bigint generated always as identity,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    scheme text not null,
    network text not null,
    chain text not null,
    asset text not null,
    asset_address text not null,
    tx_hash text not null,
    status text not null check (status in ('confirmed', 'pending', 'failed')),
    aml_check text not null,
    error_reason text,
    resource text,
    description text,
    payer text,
    pay_to text not null,
    amount numeric(78, 0) not null,
    fee numeric(78, 0) not null,
    -- Whether the payment reached one of the merchant's own addresses, so its balance was credited.
    credited boolean not null,
    block_number bigint,
    created_at timestamptz not null,
    -- One row per on-chain transaction however often settle is called.
    unique (environment, network, tx_hash)
  )`,
  sql`create index x402_transactions_list_idx on x402_transactions (merchant_id, environment, seq desc)`,
  // Addresses outside Tollgate's custody that a merchant named as payTo in POST /x402/requirements.
  sql`create table x402_payees (
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    network text not null,
    address text not null,
    created_at timestamptz not null,
    primary key (environment, network, address, merchant_id)
  )`,
]

/** Creates the merchant API's record of x402 payments (see `db/schema/x402.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table x402_payees`.execute(db)
  await sql`drop table x402_transactions`.execute(db)
}
