import type { Kysely } from 'kysely'
import { beforeEach, expect, test, vi } from 'vitest'
import type { Database } from '../db/database.js'
import type { OpenedDatabase } from '../db/open-database.js'
import { type Clock, createIdGenerator } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createManualClock } from '../testing/manual-clock.js'
import { createJobRunner, type JobRunnerOptions } from './create-job-runner.js'
import { enqueueJob, jobsChannel, parseJobNotification, toInsertJobsQuery } from './enqueue-job.js'

const ids = createIdGenerator()
const logger = createLogger({ level: 'silent' })

describeEachDatabase(
  'createJobRunner',
  (getDb, engine, getOpened) => {
    let db: Kysely<Database>
    let opened: OpenedDatabase
    beforeEach(async () => {
      db = getDb()
      opened = getOpened()
      await db.deleteFrom('jobs').execute()
    })
    const runner = (options: Partial<JobRunnerOptions> & { clock?: Clock } = {}) =>
      createJobRunner({ db, ids, logger, clock: options.clock ?? { now: () => new Date() }, ...options })
    const enqueue = (kind: string, payload: Record<string, unknown> = {}, clock?: Clock) =>
      enqueueJob(db, { ids, clock: clock ?? { now: () => new Date() } }, { kind, payload })
    const jobRows = () => db.selectFrom('jobs').selectAll().orderBy('created_at').execute()

    test('default: a due job runs once with its payload and its row is deleted', async () => {
      const seen: unknown[] = []
      const r = runner()
      r.register('t.echo', async (payload) => {
        seen.push(payload)
      })
      await enqueue('t.echo', { n: 1 })
      await enqueue('t.other', { n: 2 })
      expect(await r.runDue()).toBe(1)
      expect(seen).toEqual([{ n: 1 }])
      expect((await jobRows()).map((j) => j.kind)).toEqual(['t.other'])
    })

    test('behavior: keyed enqueues keep deduplicating past the sixth run of their statement (a generic plan of a prepared statement)', async () => {
      const clock = { now: () => new Date() }
      for (let i = 0; i < 8; i++) {
        expect(await enqueueJob(db, { ids, clock }, { kind: 't.keyed', key: `k${i}` })).not.toBeNull()
        expect(await enqueueJob(db, { ids, clock }, { kind: 't.keyed', key: `k${i}` })).toBeNull()
      }
      expect(await jobRows()).toHaveLength(8)
    })

    test('behavior: a NOTIFY wakes a started runner long before its poll interval', async () => {
      const seen: string[] = []
      const r = runner({ notifications: opened.notifications, pollMs: 120_000 })
      r.register('t.wake', async (payload) => {
        seen.push(String(payload.id))
      })
      await r.start()
      try {
        // Let the runner's first look at the (empty) queue finish, so only a wake-up can find the job.
        await new Promise((resolve) => setTimeout(resolve, 200))
        await enqueue('t.wake', { id: 'a' })
        await vi.waitFor(() => expect(seen).toEqual(['a']), { timeout: 10_000, interval: 20 })
      } finally {
        await r.stop()
      }
    })

    test('behavior: a job due within notifyWithinMs notifies its kind; a later one notifies kind@dueMs', async () => {
      // Kinds unique to this run: test schemas on one server share the NOTIFY channel.
      const suffix = ids.create('k')
      const heard: string[] = []
      const unlisten = await opened.notifications.listen(jobsChannel, (kind) => {
        heard.push(kind)
      })
      try {
        const now = () => new Date()
        await enqueueJob(
          db,
          { ids, clock: { now } },
          { kind: `t.later.${suffix}`, runAt: new Date(Date.now() + 30_000) },
        )
        await enqueueJob(db, { ids, clock: { now } }, { kind: `t.soon.${suffix}` })
        await vi.waitFor(() => expect(heard).toContain(`t.soon.${suffix}`), { timeout: 10_000, interval: 20 })
        // The later job was inserted (and committed) first, so its NOTIFY has arrived by now.
        const later = heard.filter((k) => k.includes(suffix) && k !== `t.soon.${suffix}`)
        expect(later).toHaveLength(1)
        expect(parseJobNotification(later[0] ?? '')).toEqual({
          kind: `t.later.${suffix}`,
          dueMs: (await jobRows()).find((j) => j.kind === `t.later.${suffix}`)?.run_at.getTime(),
        })
        expect((await jobRows()).map((j) => j.kind).sort()).toEqual([`t.later.${suffix}`, `t.soon.${suffix}`])
      } finally {
        await unlisten()
      }
    })

    test('behavior: with NOTIFY an idle runner still finds a job whose notification was lost, at its idle poll', async () => {
      const seen: string[] = []
      // Busy poll an hour: only the idle poll (idlePollMs) can find the job.
      const r = runner({ notifications: opened.notifications, pollMs: 3_600_000, idlePollMs: 100 })
      r.register('t.lost', async (payload) => {
        seen.push(String(payload.id))
      })
      await r.start()
      try {
        await new Promise((resolve) => setTimeout(resolve, 200))
        // The insert without its NOTIFY, as if the notification were lost.
        await toInsertJobsQuery(db, { ids, clock: { now: () => new Date() } }, [
          { kind: 't.lost', payload: { id: 'lost' } },
        ]).execute()
        // Well under the 10 s default: the job is found by the idle poll, not by a default.
        await vi.waitFor(() => expect(seen).toEqual(['lost']), { timeout: 5_000, interval: 20 })
      } finally {
        await r.stop()
      }
    })

    test('behavior: a runner told of a later job (kind@dueMs) starts it at its due time, not at its idle poll', async () => {
      const seen: string[] = []
      // Polls an hour apart: only the announced due time can start the job in time.
      const r = runner({ notifications: opened.notifications, pollMs: 3_600_000, idlePollMs: 3_600_000 })
      r.register('t.announced', async (payload) => {
        seen.push(String(payload.id))
      })
      await r.start()
      try {
        await new Promise((resolve) => setTimeout(resolve, 200))
        const dueMs = Date.now() + 1_500
        await enqueueJob(
          db,
          { ids, clock: { now: () => new Date() } },
          { kind: 't.announced', payload: { id: 'later' }, runAt: new Date(dueMs) },
        )
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(seen).toEqual([])
        await vi.waitFor(() => expect(seen).toEqual(['later']), { timeout: 10_000, interval: 20 })
      } finally {
        await r.stop()
      }
    })

    test('behavior: a throwing handler is retried with backoff until it succeeds, then until max_attempts', async () => {
      const clock = createManualClock()
      const r = runner({ clock, retryDelayMs: (attempt) => attempt * 1_000 })
      let calls = 0
      r.register('t.flaky', async () => {
        calls += 1
        if (calls < 3) {
          throw new Error(`boom ${calls}`)
        }
      })
      await enqueue('t.flaky', {}, clock)
      expect(await r.runDue()).toBe(1)
      const [afterFirst] = await jobRows()
      expect(afterFirst).toMatchObject({
        status: 'queued',
        attempts: 1,
        last_error: 'boom 1',
        locked_by: null,
      })
      expect(afterFirst?.run_at.getTime()).toBe(clock.now().getTime() + 1_000)
      expect(await r.runDue()).toBe(0)
      clock.advance(1_000)
      expect(await r.runDue()).toBe(1)
      clock.advance(2_000)
      expect(await r.runDue()).toBe(1)
      expect(calls).toBe(3)
      expect(await jobRows()).toEqual([])

      r.register('t.broken', async () => {
        throw new Error('always')
      })
      await enqueueJob(db, { ids, clock }, { kind: 't.broken', maxAttempts: 2 })
      await r.runDue()
      clock.advance(10_000)
      await r.runDue()
      clock.advance(10_000)
      expect(await r.runDue()).toBe(0)
      expect(await jobRows()).toMatchObject([{ status: 'failed', attempts: 2, last_error: 'always' }])
    })

    test('behavior: a job claimed by a worker that died is taken by another once the lease ends', async () => {
      const clock = createManualClock()
      const dead = runner({ clock, leaseMs: 30_000, workerId: 'wrk_dead' })
      dead.register('t.lease', async () => {})
      const seen: string[] = []
      const live = runner({ clock, leaseMs: 30_000, workerId: 'wrk_live' })
      live.register('t.lease', async (_payload, { job }) => {
        seen.push(`${job.id}:${job.attempts}`)
      })
      const id = await enqueue('t.lease', {}, clock)
      expect((await dead.claim(10)).map((j) => j.id)).toEqual([id])
      expect(await live.runDue()).toBe(0)
      clock.advance(30_001)
      expect(await live.runDue()).toBe(1)
      expect(seen).toEqual([`${id}:2`])
      expect(await jobRows()).toEqual([])
    })

    test('behavior: a worker whose lease ran out cannot overwrite the outcome of the worker that retook the job', async () => {
      const clock = createManualClock()
      let release: () => void = () => {}
      const slow = runner({ clock, leaseMs: 1_000, workerId: 'wrk_slow' })
      slow.register('t.slow', () => new Promise<void>((resolve) => (release = resolve)))
      const fast = runner({ clock, leaseMs: 1_000, workerId: 'wrk_fast' })
      fast.register('t.slow', async () => ({ rerunAt: new Date(clock.now().getTime() + 60_000) }))
      await enqueue('t.slow', {}, clock)
      const slowRun = slow.runDue()
      await vi.waitFor(async () => expect((await jobRows())[0]?.locked_by).toBe('wrk_slow'))
      clock.advance(1_001)
      expect(await fast.runDue()).toBe(1)
      release()
      await slowRun
      expect(await jobRows()).toMatchObject([{ status: 'queued', attempts: 0, locked_by: null }])
    })

    test('behavior: two workers draining one queue run every job exactly once', async () => {
      const runs = new Map<string, number>()
      const handler = async (payload: Record<string, unknown>) => {
        const n = String(payload.n)
        runs.set(n, (runs.get(n) ?? 0) + 1)
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      const workers = [runner({ concurrency: 4 }), runner({ concurrency: 4 })]
      for (const w of workers) {
        w.register('t.race', handler)
      }
      const total = 200
      await db
        .insertInto('jobs')
        .values(
          Array.from({ length: total }, (_, n) => ({
            id: ids.create('job'),
            kind: 't.race',
            payload: JSON.stringify({ n }),
            run_at: new Date(),
            created_at: new Date(),
            updated_at: new Date(),
          })),
        )
        .execute()
      const ran = await Promise.all(workers.map((w) => w.runDue()))
      expect(ran.reduce((sum, n) => sum + n, 0)).toBe(total)
      if (engine === 'postgres') {
        // Both really worked in parallel on a server (PGlite serialises them on its one session).
        expect(Math.min(...ran)).toBeGreaterThan(0)
      }
      expect(runs.size).toBe(total)
      expect([...runs.values()].every((count) => count === 1)).toBe(true)
    })

    test('behavior: a periodic task runs on one worker per interval, however many workers declare it', async () => {
      const clock = createManualClock()
      let calls = 0
      const workers = [runner({ clock }), runner({ clock })]
      for (const w of workers) {
        w.every('tick', 5_000, async () => {
          calls += 1
        })
      }
      await Promise.all(workers.map((w) => w.runDue()))
      expect(calls).toBe(1)
      await Promise.all(workers.map((w) => w.runDue()))
      expect(calls).toBe(1)
      clock.advance(5_000)
      await Promise.all(workers.map((w) => w.runDue()))
      expect(calls).toBe(2)
      expect(await jobRows()).toMatchObject([{ kind: 'every.tick', key: 'tick', status: 'queued' }])
    })

    test('behavior: stop() waits for the running job and then claims nothing more', async () => {
      const r = runner({ notifications: opened.notifications, pollMs: 50 })
      const finished: string[] = []
      let started: () => void = () => {}
      const hasStarted = new Promise<void>((resolve) => (started = resolve))
      r.register('t.stop', async (payload) => {
        started()
        await new Promise((resolve) => setTimeout(resolve, 100))
        finished.push(String(payload.id))
      })
      await r.start()
      await enqueue('t.stop', { id: 'first' })
      await hasStarted
      await r.stop()
      expect(finished).toEqual(['first'])
      await enqueue('t.stop', { id: 'second' })
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(finished).toEqual(['first'])
      expect((await jobRows()).map((j) => j.status)).toEqual(['queued'])
    })
  },
  { poolSize: 12 },
)
