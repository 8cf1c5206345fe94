import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table payment_sessions (
    id text primary key,
    reference text not null unique,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    -- Response format of the key that created the session: decides its event names and payload shape.
    response_format text not null check (response_format in ('current', 'legacy')),
    type text not null default 'checkout',
    title text not null,
    description text,
    -- Requested fiat amount in minor units of currency (scale 2).
    amount numeric(78, 0) not null check (amount > 0),
    currency text not null,
    asset text,
    chain text,
    network text,
    asset_decimals integer,
    customer_id text references customers (id),
    metadata jsonb not null default '{}'::jsonb,
    cancel_url text,
    success_url text,
    webhook_url text,
    fee_payer text not null check (fee_payer in ('merchant', 'customer')),
    -- The settlement currency asked for; null = the default rule (docs/sessions.md).
    settlement_currency text,
    state text not null check (state in ('open', 'closed')),
    payment_status text not null check (payment_status in
      ('pending', 'confirming', 'partial', 'completed', 'underpaid', 'expired', 'failed')),
    address text,
    address_id text,
    -- Locked when the address is created: asset units per fiat unit, and the amounts in asset atomic units.
    conversion_rate text,
    base_amount numeric(78, 0),
    processing_fee numeric(78, 0),
    gas_fee numeric(78, 0),
    crypto_amount numeric(78, 0),
    amount_seen numeric(78, 0) not null default 0,
    amount_confirmed numeric(78, 0) not null default 0,
    tx_hash text,
    invoice_id text,
    page_reference text,
    refund_status text,
    is_refunded boolean not null default false,
    is_underpayment_accepted boolean not null default false,
    -- Settlement: currency and asset→currency rate locked with the address; gross and fees (minor units) set once at close.
    settles_in text,
    settlement_rate text,
    settled_gross numeric(78, 0),
    settled_fees numeric(78, 0),
    settled_at timestamptz,
    rate_locked_at timestamptz,
    expires_at timestamptz not null,
    completed_at timestamptz,
    closed_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  sql`create index payment_sessions_list_idx on payment_sessions (merchant_id, environment, created_at desc)`,
  sql`create index payment_sessions_address_idx on payment_sessions (environment, address) where address is not null`,
  sql`create index payment_sessions_settled_idx on payment_sessions (merchant_id, environment, settled_at desc)
    where settled_at is not null`,
  sql`create table payment_session_transactions (
    id text primary key,
    session_id text not null references payment_sessions (id),
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    -- The rails' incoming transfer this row mirrors: one row per transfer, whatever the retries.
    incoming_transfer_id text not null unique,
    chain text not null,
    network text not null,
    asset text not null,
    tx_hash text not null,
    log_index integer not null,
    from_address text,
    to_address text not null,
    amount numeric(78, 0) not null,
    decimals integer not null,
    status text not null check (status in ('pending', 'confirmed', 'reverted')),
    confirmations integer not null default 0,
    aml_check text not null default 'pending',
    failure_reason text,
    -- False: funds that reached a closed session's address; credited to suspense, not the merchant.
    attributed boolean not null,
    ledger_transaction_id text,
    ledger_currency text,
    ledger_amount numeric(78, 0),
    confirmed_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  sql`create index payment_session_transactions_list_idx
    on payment_session_transactions (merchant_id, environment, created_at desc)`,
  sql`create index payment_session_transactions_session_idx on payment_session_transactions (session_id)`,
  sql`create index payment_session_transactions_hash_idx on payment_session_transactions (environment, tx_hash)`,
]

/** Creates payment sessions and their blockchain transactions (see `db/schema/payment-sessions.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table payment_session_transactions`.execute(db)
  await sql`drop table payment_sessions`.execute(db)
}
