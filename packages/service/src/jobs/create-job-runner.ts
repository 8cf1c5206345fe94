import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import type { Notifications, Unlisten } from '../db/notifications.js'
import type { JobsTable } from '../db/schema/jobs-events.js'
import type { Deps } from '../deps.js'
import { createBatcher } from './create-batcher.js'
import { enqueueJob, jobsChannel, parseJobNotification } from './enqueue-job.js'

/** A job as a runner claimed it: `attempts` already counts the current run. */
export type ClaimedJob = Selectable<JobsTable>

/** What a handler learns about its run; `signal` aborts when the runner stops without waiting. */
export type JobContext = { job: ClaimedJob; workerId: string; signal: AbortSignal }

/**
 * What a handler returns: nothing (the job is done and deleted) or `{ rerunAt }` (the same job row
 * is queued again at that time with its attempts reset; a retry schedule of the handler's own).
 */
export type JobOutcome = undefined | { rerunAt: Date }

/** Runs one job of a kind; throwing retries it with the runner's backoff until `max_attempts`. */
export type JobHandler = (
  payload: Record<string, unknown>,
  context: JobContext,
) => Promise<JobOutcome | undefined> | Promise<void>

/** Options of {@link createJobRunner} besides its deps. */
export type JobRunnerOptions = {
  /** LISTEN/NOTIFY wake-ups; without it the runner only polls. */
  notifications?: Notifications | undefined
  /** Names this worker in `jobs.locked_by`; default a fresh `wrk_…` id. */
  workerId?: string
  /** Jobs run at the same time by this worker (default 8). */
  concurrency?: number
  /** How long a claim holds a job before another worker may take it (default 60 s; renewed while running). */
  leaseMs?: number
  /** Longest sleep between looks at the queue while jobs run (default 1 s). */
  pollMs?: number
  /**
   * Longest sleep between looks at an idle queue: with `notifications` (every enqueue wakes the
   * runner, and it knows the next `run_at`) default 10 s, a backstop for a lost notification or a
   * dead worker's expired lease; without them, `pollMs`.
   */
  idlePollMs?: number
  /** Delay before retrying a job whose handler threw, by attempt number (1-based). */
  retryDelayMs?: (attempt: number) => number
}

/** A job runner over the `jobs` table (docs/jobs.md). */
export type JobRunner = {
  readonly workerId: string
  /** Sets the handler of a job kind; the runner only claims kinds it has a handler for. */
  register(kind: string, handler: JobHandler): void
  /** Runs `fn` about every `intervalMs`, on one worker at a time across every process on the database. */
  every(name: string, intervalMs: number, fn: (context: JobContext) => Promise<void>): void
  /** Starts claiming and running jobs in the background. */
  start(): Promise<void>
  /** Stops claiming, waits up to `timeoutMs` (default the lease) for running jobs, then lets go. */
  stop(options?: { timeoutMs?: number }): Promise<void>
  /** Test hook: claims and runs due jobs until none is due (or `maxJobs` ran); returns how many ran. */
  runDue(options?: { maxJobs?: number }): Promise<number>
  /** Test hook: claims up to `limit` due jobs without running them (a worker that dies after its claim). */
  claim(limit: number): Promise<ClaimedJob[]>
}

const periodicPrefix = 'every.'

/** Exponential backoff for a failed job: 1 s, 2 s, 4 s, … capped at an hour, ±20 % jitter. */
export function defaultRetryDelayMs(attempt: number): number {
  const base = Math.min(1_000 * 2 ** Math.max(0, attempt - 1), 3_600_000)
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

/**
 * Creates a job runner: claims due jobs with `FOR UPDATE SKIP LOCKED` and a lease (`locked_until`,
 * renewed while the handler runs), so several workers on one database never run a job at the same
 * time and a job whose worker died is taken again once its lease ends. Wakes on NOTIFY
 * (`enqueueJob`), on a finished job, at the next `run_at` it knows of, or after `pollMs`.
 */
export function createJobRunner(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'> & JobRunnerOptions,
): JobRunner {
  const { db, clock, logger } = deps
  const workerId = deps.workerId ?? deps.ids.create('wrk')
  const concurrency = deps.concurrency ?? 8
  const leaseMs = deps.leaseMs ?? 60_000
  const pollMs = deps.pollMs ?? 1_000
  const idlePollMs = deps.idlePollMs ?? (deps.notifications ? Math.max(pollMs, 10_000) : pollMs)
  const retryDelayMs = deps.retryDelayMs ?? defaultRetryDelayMs
  const handlers = new Map<string, JobHandler>()
  const periodic = new Map<string, number>()
  const inFlight = new Map<string, Promise<void>>()
  const stopController = new AbortController()
  let running = false
  let loopDone: Promise<void> | undefined
  let unlisten: Unlisten | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let wakePending = false
  let wakeUp: (() => void) | undefined

  // Queue bookkeeping (claims, leases, finishing) commits without waiting for the WAL flush: a crash
  // can only lose such a write, which puts a job back in the queue to run again (handlers are
  // idempotent), never loses a job; the handlers' own writes keep full durability (docs/jobs.md).
  const queue = () =>
    db.with('async_commit', (qb) =>
      qb.selectNoFrom(sql<string>`set_config('synchronous_commit', 'off', true)`.as('v')),
    )
  const asyncCommit = sql<boolean>`(select v from async_commit) is not null`

  const wake = () => {
    wakePending = true
    wakeUp?.()
  }

  // The earliest due time a notification announced (a job enqueued to run later) and its timer: the
  // runner wakes then, without a look at the queue in between.
  let announcedDueMs = Number.POSITIVE_INFINITY
  let announcedTimer: NodeJS.Timeout | undefined
  const wakeAt = (dueMs: number) => {
    const delay = dueMs - clock.now().getTime()
    if (delay <= 0) {
      wake()
      return
    }
    if (dueMs >= announcedDueMs) {
      return
    }
    clearTimeout(announcedTimer)
    announcedDueMs = dueMs
    announcedTimer = setTimeout(() => {
      announcedDueMs = Number.POSITIVE_INFINITY
      wake()
    }, delay)
    announcedTimer.unref()
  }

  const claim = async (limit: number): Promise<ClaimedJob[]> => {
    const kinds = [...handlers.keys()]
    if (limit <= 0 || kinds.length === 0) {
      return []
    }
    const now = clock.now()
    return queue()
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: sql`attempts + 1`,
        locked_by: workerId,
        locked_until: new Date(now.getTime() + leaseMs),
        updated_at: now,
      })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('kind', 'in', kinds)
          .where((w) =>
            w.or([
              w.and([w('status', '=', 'queued'), w('run_at', '<=', now)]),
              w.and([w('status', '=', 'running'), w('locked_until', '<', now)]),
            ]),
          )
          .orderBy('run_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .where(asyncCommit)
      .returningAll()
      .execute()
  }

  // Finished jobs are deleted in batches: the ids that finish while one DELETE runs go together in
  // the next, so a busy runner spends one statement on many jobs (docs/jobs.md). Each caller waits
  // for the DELETE that holds its id; until then the row stays `running` under this worker's lease.
  const deleteFinished = createBatcher(async (ids: string[]) => {
    await queue()
      .deleteFrom('jobs')
      .where('id', 'in', ids)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .where(asyncCommit)
      .execute()
    return ids.map(() => undefined)
  })

  // Every write after the claim is guarded by locked_by: a worker whose lease ran out and whose job
  // another worker took never overwrites that worker's outcome.
  const finish = async (job: ClaimedJob, outcome: JobOutcome | undefined) => {
    const owned = queue()
      .updateTable('jobs')
      .where('id', '=', job.id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .where(asyncCommit)
    if (outcome?.rerunAt) {
      await owned
        .set({
          status: 'queued',
          run_at: outcome.rerunAt,
          attempts: 0,
          locked_by: null,
          locked_until: null,
          last_error: null,
          updated_at: clock.now(),
        })
        .execute()
      return
    }
    await deleteFinished(job.id)
  }

  const fail = async (job: ClaimedJob, error: unknown) => {
    const message = error instanceof Error ? error.message : String(error)
    const final = job.attempts >= job.max_attempts
    const now = clock.now()
    logger.warn({ err: error, jobId: job.id, kind: job.kind, attempt: job.attempts, final }, 'job failed')
    await db
      .updateTable('jobs')
      .where('id', '=', job.id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .set({
        status: final ? 'failed' : 'queued',
        run_at: final ? now : new Date(now.getTime() + retryDelayMs(job.attempts)),
        locked_by: null,
        locked_until: null,
        last_error: message.slice(0, 2_000),
        updated_at: now,
      })
      .execute()
  }

  const execute = async (job: ClaimedJob): Promise<void> => {
    const handler = handlers.get(job.kind)
    try {
      if (!handler) {
        throw new Error(`no handler for job kind ${job.kind}`)
      }
      if (job.attempts > job.max_attempts) {
        // Only reachable when workers died holding it (the lease ran out) more often than allowed.
        throw new Error(`job ran out of attempts (${job.max_attempts}) without finishing`)
      }
      const outcome = await handler(job.payload, { job, workerId, signal: stopController.signal })
      await finish(job, outcome ?? undefined)
    } catch (error) {
      await fail(job, error).catch((cause: unknown) =>
        logger.error({ err: cause, jobId: job.id }, 'recording a job failure failed; its lease will expire'),
      )
    }
  }

  const track = (job: ClaimedJob) => {
    const done = execute(job).finally(() => {
      inFlight.delete(job.id)
      wake()
    })
    inFlight.set(job.id, done)
  }

  const nextDueMs = async (): Promise<number> => {
    const kinds = [...handlers.keys()]
    if (kinds.length === 0) {
      return idlePollMs
    }
    const row = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('run_at').as('next'))
      .where('status', '=', 'queued')
      .where('kind', 'in', kinds)
      .executeTakeFirst()
    const next = row?.next ? new Date(row.next).getTime() - clock.now().getTime() : idlePollMs
    return Math.max(0, Math.min(idlePollMs, next))
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (wakePending || !running) {
        resolve()
        return
      }
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        wakeUp = undefined
        resolve()
      }
      wakeUp = done
    })

  // Claims are batched: while jobs run, the runner waits until a quarter of its slots are free
  // (or none runs) before it asks again, so a busy queue costs one claim per several jobs, not one each.
  const claimBatch = Math.max(1, Math.floor(concurrency / 4))

  const loop = async () => {
    while (running) {
      wakePending = false
      try {
        const free = concurrency - inFlight.size
        if (free >= claimBatch || inFlight.size === 0) {
          const jobs = await claim(free)
          for (const job of jobs) {
            track(job)
          }
          if (jobs.length === free) {
            continue
          }
        }
        // Idle: sleep until the next known run_at (or a wake-up); busy: until a job finishes.
        await sleep(inFlight.size === 0 ? await nextDueMs() : pollMs)
      } catch (error) {
        logger.error({ err: error, workerId }, 'job runner could not read the queue')
        await sleep(pollMs)
      }
    }
  }

  const renewLeases = async () => {
    const ids = [...inFlight.keys()]
    if (ids.length === 0) {
      return
    }
    await queue()
      .updateTable('jobs')
      .set({ locked_until: new Date(clock.now().getTime() + leaseMs) })
      .where(asyncCommit)
      .where('id', 'in', ids)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'running')
      .execute()
  }

  const schedulePeriodic = async () => {
    for (const name of periodic.keys()) {
      await enqueueJob(db, deps, { kind: `${periodicPrefix}${name}`, key: name, payload: { name } })
    }
  }

  return {
    workerId,
    register(kind, handler) {
      handlers.set(kind, handler)
      wake()
    },
    every(name, intervalMs, fn) {
      periodic.set(name, intervalMs)
      handlers.set(`${periodicPrefix}${name}`, async (_payload, context) => {
        try {
          await fn(context)
        } catch (error) {
          logger.error({ err: error, task: name }, 'periodic task failed')
        }
        return { rerunAt: new Date(clock.now().getTime() + intervalMs) }
      })
      if (running) {
        schedulePeriodic().catch((error: unknown) =>
          logger.error({ err: error, task: name }, 'scheduling a periodic task failed'),
        )
      }
    },
    async start() {
      if (running) {
        return
      }
      running = true
      if (deps.notifications) {
        unlisten = await deps.notifications.listen(jobsChannel, (payload) => {
          const { kind, dueMs } = parseJobNotification(payload)
          if (handlers.has(kind)) {
            if (dueMs === undefined) {
              wake()
            } else {
              wakeAt(dueMs)
            }
          }
        })
      }
      await schedulePeriodic()
      heartbeat = setInterval(
        () => {
          renewLeases().catch((error: unknown) =>
            logger.warn({ err: error, workerId }, 'renewing job leases failed'),
          )
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      )
      heartbeat.unref()
      loopDone = loop()
    },
    async stop(options = {}) {
      if (!running) {
        return
      }
      running = false
      clearTimeout(announcedTimer)
      announcedDueMs = Number.POSITIVE_INFINITY
      wake()
      await loopDone
      const timeoutMs = options.timeoutMs ?? leaseMs
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
      })
      await Promise.race([Promise.allSettled([...inFlight.values()]), timedOut])
      clearTimeout(timer)
      if (inFlight.size > 0) {
        // Handlers still running keep their rows locked until the lease ends; another worker retries them.
        stopController.abort()
        logger.warn({ workerId, running: inFlight.size }, 'job runner stopped with jobs still running')
      }
      clearInterval(heartbeat)
      await unlisten?.()
      unlisten = undefined
    },
    async runDue(options = {}) {
      await schedulePeriodic()
      const maxJobs = options.maxJobs ?? Number.POSITIVE_INFINITY
      let ran = 0
      while (ran < maxJobs) {
        const jobs = await claim(Math.min(concurrency, maxJobs - ran))
        if (jobs.length === 0) {
          break
        }
        await Promise.all(jobs.map((job) => execute(job)))
        ran += jobs.length
      }
      return ran
    },
    claim,
  }
}
