import { sql } from 'kysely'
import { Gauge, type Registry } from 'prom-client'
import type { Deps } from '../deps.js'

/** The most jobs a `jobs_queue_depth` state counts; a deeper queue reads as this. */
export const COUNT_CAP = 10_000

/**
 * Registers the queue gauges, read from partial indexes of `jobs` at each scrape (each state counted
 * up to {@link COUNT_CAP}, so a scrape never reads the whole table): `jobs_queue_depth{state}`
 * (`due`: queued and due now, `scheduled`: queued for later, `running`, `failed`) and
 * `jobs_oldest_due_seconds` (how long the oldest due job has waited; 0 when none).
 */
export function createJobMetrics(registry: Registry, deps: Pick<Deps, 'db' | 'clock'>): void {
  new Gauge({
    name: 'jobs_queue_depth',
    help: 'Jobs in the queue by state (due, scheduled, running, failed)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const now = deps.clock.now()
      // Each state is counted through a partial index (migration 0015), and only up to the cap: a
      // scrape costs the same whatever the queue holds. Status values are literals so the planner
      // matches the indexes' predicates.
      const {
        rows: [rows],
      } = await sql<Record<'due' | 'scheduled' | 'running' | 'failed', string>>`
        select
          (select count(*) from (select 1 from jobs where status = 'queued' and run_at <= ${now} limit ${COUNT_CAP}) q) as due,
          (select count(*) from (select 1 from jobs where status = 'queued' and run_at > ${now} limit ${COUNT_CAP}) q) as scheduled,
          (select count(*) from (select 1 from jobs where status = 'running' limit ${COUNT_CAP}) q) as running,
          (select count(*) from (select 1 from jobs where status = 'failed' limit ${COUNT_CAP}) q) as failed`.execute(
        deps.db,
      )
      for (const state of ['due', 'scheduled', 'running', 'failed'] as const) {
        this.set({ state }, Number(rows?.[state] ?? 0))
      }
    },
  })
  new Gauge({
    name: 'jobs_oldest_due_seconds',
    help: 'Age in seconds of the oldest job that is due and not yet claimed (0 when none)',
    registers: [registry],
    async collect() {
      const now = deps.clock.now()
      const row = await deps.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.min('run_at').as('oldest'))
        .where('status', '=', 'queued')
        .where('run_at', '<=', now)
        .executeTakeFirst()
      const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime()
      this.set(Math.max(0, (now.getTime() - oldest) / 1_000))
    },
  })
}
