import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table ledger_accounts (
    id text primary key,
    environment text not null check (environment in ('test', 'live')),
    code text not null,
    currency text not null,
    merchant_id text references merchants (id),
    debits_must_not_exceed_credits boolean not null default false,
    credits_must_not_exceed_debits boolean not null default false,
    debits_pending numeric(78, 0) not null default 0 check (debits_pending >= 0),
    debits_posted numeric(78, 0) not null default 0 check (debits_posted >= 0),
    credits_pending numeric(78, 0) not null default 0 check (credits_pending >= 0),
    credits_posted numeric(78, 0) not null default 0 check (credits_posted >= 0),
    created_at timestamptz not null,
    unique (environment, code, currency),
    -- Backstop of the conditional UPDATE: a flagged account never goes negative, whatever the code does.
    constraint ledger_accounts_debits_within_credits check (
      not debits_must_not_exceed_credits or debits_posted + debits_pending <= credits_posted
    ),
    constraint ledger_accounts_credits_within_debits check (
      not credits_must_not_exceed_debits or credits_posted + credits_pending <= debits_posted
    )
  )`,
  sql`create index ledger_accounts_merchant_idx on ledger_accounts (merchant_id, environment)`,
  sql`create table ledger_transactions (
    id text primary key,
    environment text not null check (environment in ('test', 'live')),
    idempotency_key text not null,
    request_hash text not null,
    source text not null,
    source_id text,
    source_reference text,
    reference text,
    description text,
    tx_hash text,
    created_at timestamptz not null,
    unique (environment, idempotency_key)
  )`,
  sql`create table ledger_transfers (
    id text primary key,
    transaction_id text not null references ledger_transactions (id),
    leg integer not null,
    environment text not null check (environment in ('test', 'live')),
    currency text not null,
    debit_account_id text not null references ledger_accounts (id),
    credit_account_id text not null references ledger_accounts (id),
    amount numeric(78, 0) not null check (amount > 0),
    phase text not null check (phase in ('single', 'pending', 'post', 'void', 'expire')),
    -- Unique: a pending transfer is posted, voided or expired at most once.
    pending_id text unique references ledger_transfers (id),
    expires_at timestamptz,
    created_at timestamptz not null,
    check (debit_account_id <> credit_account_id),
    check ((phase in ('post', 'void', 'expire')) = (pending_id is not null)),
    check (expires_at is null or phase = 'pending')
  )`,
  sql`create index ledger_transfers_transaction_idx on ledger_transfers (transaction_id)`,
  sql`create index ledger_transfers_debit_idx on ledger_transfers (debit_account_id)`,
  sql`create index ledger_transfers_credit_idx on ledger_transfers (credit_account_id)`,
  sql`create index ledger_transfers_expiry_idx on ledger_transfers (expires_at) where expires_at is not null`,
  sql`create function ledger_transfers_immutable() returns trigger language plpgsql as $$
    begin
      raise exception 'ledger transfers are immutable: post a correcting transfer instead';
    end
  $$`,
  sql`create trigger ledger_transfers_immutable before update or delete on ledger_transfers
    for each row execute function ledger_transfers_immutable()`,
  sql`create table balance_transactions (
    id text primary key,
    seq bigint generated always as identity,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    account_id text not null references ledger_accounts (id),
    transaction_id text not null references ledger_transactions (id),
    transfer_id text not null references ledger_transfers (id),
    source text not null,
    source_id text,
    source_reference text,
    reference text,
    description text,
    tx_hash text,
    direction text not null check (direction in ('credit', 'debit')),
    status text not null check (status in ('pending', 'completed', 'voided')),
    amount numeric(78, 0) not null check (amount > 0),
    currency text not null,
    before_available numeric(78, 0) not null,
    before_pending numeric(78, 0) not null,
    after_available numeric(78, 0) not null,
    after_pending numeric(78, 0) not null,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    unique (transfer_id, account_id)
  )`,
  sql`create index balance_transactions_list_idx
    on balance_transactions (merchant_id, environment, seq desc)`,
  sql`create index balance_transactions_tx_hash_idx
    on balance_transactions (merchant_id, environment, tx_hash) where tx_hash is not null`,
]

/** Creates the ledger: accounts, transactions, immutable transfers and the balance-transaction view. */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'balance_transactions',
    'ledger_transfers',
    'ledger_transactions',
    'ledger_accounts',
  ]) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
  await sql`drop function ledger_transfers_immutable()`.execute(db)
}
