import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  sql`create table jobs (
    id text primary key,
    kind text not null,
    -- Deduplication: at most one unfinished job per (kind, key).
    key text,
    payload jsonb not null default '{}'::jsonb,
    status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
    run_at timestamptz not null,
    attempts integer not null default 0,
    max_attempts integer not null default 10,
    locked_by text,
    locked_until timestamptz,
    last_error text,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  sql`create unique index jobs_key_idx on jobs (kind, key) where key is not null and status in ('queued', 'running')`,
  sql`create index jobs_due_idx on jobs (run_at) where status in ('queued', 'running')`,
  sql`create table events (
    id text primary key,
    seq bigint generated always as identity,
    merchant_id text not null references merchants (id),
    environment text not null check (environment in ('test', 'live')),
    type text not null,
    format text not null check (format in ('current', 'legacy')),
    -- The webhook body exactly as sent: { event, data: { session | payout | deposit | swap } }.
    payload jsonb not null,
    -- A per-object webhookUrl (session, payout, swap) replacing the merchant's endpoints for this event.
    webhook_url text,
    created_at timestamptz not null
  )`,
  sql`create index events_list_idx on events (merchant_id, environment, seq desc)`,
]

/** Creates the durable job queue and the events outbox (see `db/schema/jobs-events.ts`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the tables of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table events`.execute(db)
  await sql`drop table jobs`.execute(db)
}
