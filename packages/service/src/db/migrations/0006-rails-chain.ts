import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  // The next HD index per derivation branch (environment, coin, purpose): see docs/rails.md "Chains".
  sql`create table address_counters (
    branch text primary key,
    next_index bigint not null
  )`,
  sql`create table deposit_addresses (
    id text primary key,
    -- Insertion order: watchers load addresses added since their last look (seq > last seen).
    seq bigint generated always as identity,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    chain text not null,
    network text not null,
    address text not null,
    purpose text not null check (purpose in ('session', 'deposit', 'x402')),
    owner_id text not null,
    derivation_path text not null,
    created_at timestamptz not null,
    unique (purpose, owner_id, chain),
    unique (network, address)
  )`,
  sql`create index deposit_addresses_seq_idx on deposit_addresses (network, seq)`,
  sql`create table incoming_transfers (
    id text primary key,
    environment text not null check (environment in ('test', 'live')),
    chain text not null,
    network text not null,
    asset text not null,
    amount numeric(78, 0) not null check (amount > 0),
    decimals integer not null,
    tx_hash text not null,
    log_index integer not null,
    from_address text,
    to_address text not null,
    block_number bigint,
    block_hash text,
    confirmations integer not null,
    status text not null check (status in ('seen', 'confirmed', 'reverted')),
    address_id text not null references deposit_addresses (id),
    seen_at timestamptz not null,
    confirmed_at timestamptz,
    reverted_at timestamptz,
    updated_at timestamptz not null,
    unique (network, tx_hash, log_index)
  )`,
  sql`create index incoming_transfers_address_idx on incoming_transfers (address_id, seen_at)`,
  sql`create index incoming_transfers_seen_idx on incoming_transfers (network, block_number) where status = 'seen'`,
  // One watcher cursor per network: the last block fully recorded and its hash (reorg detection).
  sql`create table chain_cursors (
    network text primary key,
    block_number bigint not null,
    block_hash text,
    updated_at timestamptz not null
  )`,
  sql`create table crypto_sends (
    id text primary key,
    environment text not null check (environment in ('test', 'live')),
    idempotency_key text not null,
    chain text not null,
    network text not null,
    asset text not null,
    to_address text not null,
    -- A sweep's deposit address (its key signs); null for a send from the treasury.
    source_address_id text references deposit_addresses (id),
    amount numeric(78, 0) not null check (amount > 0),
    status text not null check (status in ('pending', 'confirmed', 'failed')),
    -- Every hash broadcast for this send (replacements included), recorded before each broadcast.
    tx_hashes jsonb not null default '[]'::jsonb,
    tx_hash text,
    failure_reason text,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    unique (environment, idempotency_key)
  )`,
  sql`create index crypto_sends_pending_idx on crypto_sends (network) where status = 'pending'`,
]

/** Creates deposit addresses, incoming transfers, watcher cursors and outbound sends (see `db/schema/rails-chain.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'crypto_sends',
    'chain_cursors',
    'incoming_transfers',
    'deposit_addresses',
    'address_counters',
  ]) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
}
