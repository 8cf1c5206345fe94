import { sql } from 'kysely'
import type { Deps } from '../deps.js'
import type { Db } from '../rails/types.js'

/** Input of {@link enqueueJob}: what to run, when, and an optional deduplication key. */
export type EnqueueJobInput = {
  kind: string
  payload?: Record<string, unknown>
  /** Earliest start; default now. */
  runAt?: Date
  /** At most one unfinished job per (kind, key): a second enqueue with the same key is a no-op. */
  key?: string
  maxAttempts?: number
}

/** The channel job runners LISTEN on; a NOTIFY wakes them without polling delay. */
export const jobsChannel = 'tollgate_jobs'

/**
 * Inserts a durable job in `db` (pass the caller's transaction so the job exists exactly when the
 * state change that asked for it commits) and notifies the runners. Returns the job id, or null when
 * an unfinished job with the same (kind, key) already exists.
 */
export async function enqueueJob(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: EnqueueJobInput,
): Promise<string | null> {
  const now = deps.clock.now()
  const row = await db
    .insertInto('jobs')
    .values({
      id: deps.ids.create('job'),
      kind: input.kind,
      key: input.key ?? null,
      payload: JSON.stringify(input.payload ?? {}),
      run_at: input.runAt ?? now,
      ...(input.maxAttempts === undefined ? {} : { max_attempts: input.maxAttempts }),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['kind', 'key'])
        .where('key', 'is not', null)
        .where('status', 'in', ['queued', 'running'])
        .doNothing(),
    )
    .returning('id')
    .executeTakeFirst()
  if (row) {
    // Delivered at commit (PostgreSQL and PGlite alike), so a runner never wakes before the row is visible.
    await sql`select pg_notify(${jobsChannel}, ${input.kind})`.execute(db)
  }
  return row?.id ?? null
}
