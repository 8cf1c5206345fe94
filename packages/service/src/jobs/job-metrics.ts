import { Gauge, type Registry } from 'prom-client'
import type { Deps } from '../deps.js'

/**
 * Registers the queue gauges, read from the `jobs` table at each scrape: `jobs_queue_depth{state}`
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
      const rows = await deps.db
        .selectFrom('jobs')
        .select((eb) => [
          eb.fn
            .countAll<string>()
            .filterWhere('status', '=', 'queued')
            .filterWhere('run_at', '<=', now)
            .as('due'),
          eb.fn
            .countAll<string>()
            .filterWhere('status', '=', 'queued')
            .filterWhere('run_at', '>', now)
            .as('scheduled'),
          eb.fn.countAll<string>().filterWhere('status', '=', 'running').as('running'),
          eb.fn.countAll<string>().filterWhere('status', '=', 'failed').as('failed'),
        ])
        .executeTakeFirstOrThrow()
      for (const state of ['due', 'scheduled', 'running', 'failed'] as const) {
        this.set({ state }, Number(rows[state]))
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
