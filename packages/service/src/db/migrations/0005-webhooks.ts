import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table webhook_endpoints (
    id text primary key,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    url text not null,
    description text,
    -- Canonical event types (current names) or '*' for every type.
    enabled_events text[] not null,
    disabled boolean not null default false,
    -- whsec_…: needed in clear to sign; the API shows it only on create and rotate.
    secret text not null,
    -- After a rotation the old secret signs too (a second v1 signature) until it expires.
    previous_secret text,
    previous_secret_expires_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    deleted_at timestamptz
  )`,
  sql`create index webhook_endpoints_list_idx on webhook_endpoints (merchant_id, environment, created_at desc)
    where deleted_at is null`,
  // Signs deliveries to a per-object webhookUrl (docs/webhooks.md): one secret per merchant and environment.
  sql`create table webhook_secrets (
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    secret text not null,
    previous_secret text,
    previous_secret_expires_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    primary key (merchant_id, environment)
  )`,
  sql`create table webhook_deliveries (
    id text primary key,
    event_id text not null references events (id),
    -- Null for a delivery to the event's own webhookUrl.
    endpoint_id text references webhook_endpoints (id),
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    url text not null,
    status text not null check (status in ('pending', 'succeeded', 'failed')),
    attempts integer not null default 0,
    max_attempts integer not null,
    next_attempt_at timestamptz,
    last_status_code integer,
    last_error text,
    created_at timestamptz not null,
    updated_at timestamptz not null,
    completed_at timestamptz
  )`,
  sql`create unique index webhook_deliveries_endpoint_idx on webhook_deliveries (event_id, endpoint_id)
    where endpoint_id is not null`,
  sql`create unique index webhook_deliveries_url_idx on webhook_deliveries (event_id) where endpoint_id is null`,
  sql`create table webhook_attempts (
    id text primary key,
    delivery_id text not null references webhook_deliveries (id),
    attempt integer not null,
    url text not null,
    started_at timestamptz not null,
    duration_ms integer not null,
    status_code integer,
    succeeded boolean not null,
    error text,
    -- The receiver's answer, cut at 4 KiB.
    response_body text,
    unique (delivery_id, attempt)
  )`,
]

/** Adds webhook endpoints, secrets, deliveries and attempts (see `db/schema/webhooks.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_secrets', 'webhook_endpoints']) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
}
