import { sql } from 'kysely'
import type { JobStatus } from '../db/schema/jobs-events.js'
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
 * A job due within this many ms of its enqueue notifies its kind, and a runner wakes to claim it. A later
 * job (a backstop 30 s out, a re-query) notifies `kind@dueMs` (its `run_at` in ms since the epoch):
 * a runner handling the kind sets a timer for then instead of looking at the queue at once, so its
 * enqueue costs no runner an empty claim (docs/jobs.md "Wake-ups").
 */
export const notifyWithinMs = 1_000

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
  const [id] = await enqueueJobs(db, deps, [input])
  return id ?? null
}

/**
 * {@link enqueueJob} for many jobs in one statement (the insert and the NOTIFY of each new job's
 * kind together). Returns the ids of the jobs inserted (those whose (kind, key) had no unfinished job).
 */
export async function enqueueJobs(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock'>,
  inputs: EnqueueJobInput[],
): Promise<string[]> {
  if (inputs.length === 0) {
    return []
  }
  const inserted = await db
    .with('inserted', () => toInsertJobsQuery(db, deps, inputs))
    .selectFrom('inserted')
    .select(['id', notifyDueJob(deps).as('notified')])
    .execute()
  return inserted.map((row) => row.id)
}

/**
 * The NOTIFY of one inserted job, to select from the insert's CTE (columns `kind` and `run_at`): its
 * kind when it is due within {@link notifyWithinMs}, else `kind@dueMs` (see {@link parseJobNotification}).
 * The NOTIFY is delivered at commit (PostgreSQL and PGlite alike), so a runner never wakes before the
 * row is visible; identical notifications of one transaction arrive once.
 */
export function notifyDueJob(deps: Pick<Deps, 'clock'>) {
  const notifyBefore = new Date(deps.clock.now().getTime() + notifyWithinMs)
  return sql<string>`pg_notify(${jobsChannel}, case when run_at <= ${notifyBefore} then kind
    else kind || '@' || floor(extract(epoch from run_at) * 1000)::bigint::text end)`
}

/** A job notification's kind, and for a job due later its due time in ms since the epoch. */
export function parseJobNotification(payload: string): { kind: string; dueMs?: number } {
  const at = payload.lastIndexOf('@')
  const dueMs = at === -1 ? Number.NaN : Number(payload.slice(at + 1))
  return Number.isSafeInteger(dueMs) ? { kind: payload.slice(0, at), dueMs } : { kind: payload }
}

/**
 * The insert of {@link enqueueJobs} (returning `id`, `kind` and `run_at` of the jobs inserted), for a
 * caller that puts its jobs in a CTE of its own statement (one round trip less). The caller must also
 * select {@link notifyDueJob} from that CTE in the same statement, as enqueueJobs does.
 * `inputs` must not be empty.
 */
export function toInsertJobsQuery(db: Db, deps: Pick<Deps, 'ids' | 'clock'>, inputs: EnqueueJobInput[]) {
  const now = deps.clock.now()
  // Rows whose columns differ (max_attempts given or not) keep the column default through DEFAULT.
  const rows = inputs.map((input) => ({
    id: deps.ids.create('job'),
    kind: input.kind,
    key: input.key ?? null,
    payload: JSON.stringify(input.payload ?? {}),
    run_at: input.runAt ?? now,
    max_attempts: input.maxAttempts ?? sql<number>`default`,
    created_at: now,
    updated_at: now,
  }))
  return db
    .insertInto('jobs')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['kind', 'key'])
        .where('key', 'is not', null)
        // Literals, not parameters: the arbiter index is inferred at planning, and a generic plan of
        // a prepared statement (the PGlite dialect's, from the sixth run) cannot match a partial
        // index's predicate against parameters ("no unique or exclusion constraint matching").
        .where('status', 'in', [sql.lit<JobStatus>('queued'), sql.lit<JobStatus>('running')])
        .doNothing(),
    )
    .returning(['id', 'kind', 'run_at'])
}
