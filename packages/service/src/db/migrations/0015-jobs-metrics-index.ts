import { type Kysely, sql } from 'kysely'

/**
 * Indexes for a cheap `/metrics` scrape (docs/jobs.md "Metrics"): unfinished jobs by status and
 * `run_at` (counted by an index-only scan, the oldest due one is its first entry) and the failed
 * ones, so no scrape reads the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index jobs_unfinished_idx on jobs (status, run_at) where status in ('queued', 'running')`.execute(
    db,
  )
  await sql`create index jobs_failed_idx on jobs (status) where status = 'failed'`.execute(db)
}

/** Drops the indexes of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index jobs_failed_idx`.execute(db)
  await sql`drop index jobs_unfinished_idx`.execute(db)
}
