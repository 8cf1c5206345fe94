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
  sql`create table deposit_accounts (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    -- Null for the merchant's parent account; otherwise the holder.
    customer_id text references customers (id),
    is_parent boolean not null,
    settlement_currency text not null,
    status text not null check (status in ('active')),
    -- Format of the key that created the account: the shape of its deposits' events.
    response_format text not null check (response_format in ('current', 'legacy')),
    created_at timestamptz not null,
    updated_at timestamptz not null,
    check (is_parent = (customer_id is null)),
    check (not is_parent or settlement_currency = 'default')
  )`,
  // One account per holder: one parent per merchant and environment, one per customer.
  sql`create unique index deposit_accounts_parent_idx on deposit_accounts (merchant_id, environment)
    where is_parent`,
  sql`create unique index deposit_accounts_customer_idx on deposit_accounts (customer_id)
    where customer_id is not null`,
  sql`create index deposit_accounts_list_idx on deposit_accounts (merchant_id, environment, created_at desc)`,
  sql`create table deposit_account_identities (
    id text primary key,
    deposit_account_id text not null references deposit_accounts (id),
    environment text not null check (environment in ('test', 'live')),
    type text not null check (type in ('static_deposit_address', 'ngn_virtual_account')),
    chain text,
    address text,
    -- The rails' deposit address (purpose 'deposit', owner = the deposit account).
    address_id text,
    currency text,
    account_number text,
    account_name text,
    bank_name text,
    bank_code text,
    -- The provider's key of the virtual account (our identity id); inbound transfers name it.
    account_reference text unique,
    created_at timestamptz not null,
    check ((type = 'static_deposit_address') = (chain is not null and address is not null))
  )`,
  sql`create unique index deposit_account_identities_chain_idx
    on deposit_account_identities (deposit_account_id, chain) where type = 'static_deposit_address'`,
  sql`create unique index deposit_account_identities_currency_idx
    on deposit_account_identities (deposit_account_id, currency) where type = 'ngn_virtual_account'`,
  sql`create index deposit_account_identities_address_idx on deposit_account_identities (address_id)`,
  sql`create table deposits (
    id text primary key,
    seq bigint generated always as identity,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    deposit_account_id text not null references deposit_accounts (id),
    customer_id text references customers (id),
    type text not null check (type in ('crypto', 'fiat')),
    status text not null check (status in ('pending', 'completed', 'failed')),
    -- What recorded it: incoming:{incoming transfer id} or inbound:{inbound fiat transfer id}.
    source_key text not null,
    currency text not null,
    amount numeric(78, 0) not null check (amount >= 0),
    fee numeric(78, 0) not null check (fee >= 0),
    net_amount numeric(78, 0) not null check (net_amount >= 0),
    conversion jsonb,
    crypto jsonb,
    fiat jsonb,
    tx_hash text,
    chain text,
    -- The ledger transaction that credits it (pending for crypto until the confirmation count).
    ledger_transaction_id text references ledger_transactions (id),
    failure_reason text,
    response_format text not null check (response_format in ('current', 'legacy')),
    created_at timestamptz not null,
    updated_at timestamptz not null,
    completed_at timestamptz,
    unique (environment, source_key),
    check (net_amount + fee = amount)
  )`,
  sql`create index deposits_list_idx on deposits (merchant_id, environment, seq desc)`,
  sql`create index deposits_tx_hash_idx on deposits (merchant_id, environment, tx_hash) where tx_hash is not null`,
]

/** Creates swap quotations and swaps, deposit accounts, their identities and deposits (see `db/schema/deposits-swaps.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops what {@link up} created. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'deposits',
    'deposit_account_identities',
    'deposit_accounts',
    'swaps',
    'swap_quotations',
  ]) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
}
