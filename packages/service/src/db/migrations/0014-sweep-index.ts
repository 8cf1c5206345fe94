import { type Kysely, sql } from 'kysely'

/**
 * Indexes the sweeps (sends whose source is a deposit address) by network and last update: the
 * Solana watcher reads the ones settled since its last look (docs/rails.md "Sweeps and the Solana
 * watcher"), and `crypto_sends` also holds every payout's send.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index crypto_sends_sweeps_idx on crypto_sends (network, updated_at)
    where source_address_id is not null`.execute(db)
}

/** Drops the index of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index crypto_sends_sweeps_idx`.execute(db)
}
