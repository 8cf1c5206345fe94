import { type Kysely, sql } from 'kysely'

// One statement per entry: PGlite's extended protocol runs a single statement per query.
const statements = [
  // Solana: every signed transaction of a send (signature, last valid block height, wire bytes),
  // recorded before its broadcast, so any process can re-send it or prove it dead.
  sql`alter table crypto_sends add column attempts jsonb not null default '[]'::jsonb`,
  // Which process drives a pending send, and until when (renewed while it waits); an expired
  // lease lets another process resume the send.
  sql`alter table crypto_sends add column lease_owner text`,
  sql`alter table crypto_sends add column lease_until timestamptz`,
]

/** Adds send attempts and the resume lease to `crypto_sends` (docs/rails.md "Outbound crypto"). */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) {
    await statement.execute(db)
  }
}

/** Drops the columns of {@link up}. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['lease_until', 'lease_owner', 'attempts']) {
    await sql`alter table crypto_sends drop column ${sql.ref(column)}`.execute(db)
  }
}
