import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table payment_pages (
    id text primary key,
    seq bigint generated always as identity,
    -- The public handle of the page's url (/pay/{reference}) and of its public view.
    reference text not null unique,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    title text not null,
    description text,
    is_active boolean not null,
    currency text not null,
    -- Minor units of currency; the least a customer may pay (open amount or order total).
    min_amount numeric(78, 0) check (min_amount > 0),
    enable_quantity boolean not null,
    image_url text,
    -- Ids of the merchant's NGN bank recipients shown for bank transfer, in the merchant's order.
    bank_account_ids jsonb not null,
    deleted_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  sql`create index payment_pages_list_idx on payment_pages (merchant_id, environment, seq desc)
    where deleted_at is null`,
  sql`create table payment_page_products (
    id text primary key,
    page_id text not null references payment_pages (id),
    title text not null,
    description text,
    price numeric(78, 0) not null check (price > 0),
    is_active boolean not null,
    sort_order integer not null,
    image_url text,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  sql`create index payment_page_products_page_idx on payment_page_products (page_id, sort_order)`,
]

/** Creates the payment pages and their products (see `db/schema/payment-pages.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table payment_page_products`.execute(db)
  await sql`drop table payment_pages`.execute(db)
}
