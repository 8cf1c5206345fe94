/**
 * What one `/metrics` scrape of the job gauges costs over a jobs table of 100,000 rows (issue 36
 * item 7): PGlite in a temporary directory and, with BENCH_DATABASE_URL, PostgreSQL in a fresh
 * schema. Two mixes: every row unfinished (a backlog) and 100,000 failed rows beside 1,000
 * unfinished ones (failed rows stay for inspection and pile up). Prints ms per scrape.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '@tollgate/service'
import { sql } from 'kysely'
import { Registry } from 'prom-client'
import { createJobMetrics } from '../packages/service/src/jobs/job-metrics.js'
import { percentile, round } from './lib/stats.js'

const ROWS = 100_000
const SCRAPES = 20

async function measure(engine: 'pglite' | 'postgres', mix: 'backlog' | 'failed') {
  const dataDir = engine === 'pglite' ? await mkdtemp(join(tmpdir(), 'tollgate-metrics-')) : undefined
  const schema = engine === 'postgres' ? `bench_metrics_${process.pid}_${mix}` : undefined
  const opened = await openDatabase({
    ...(dataDir ? { dataDir } : { databaseUrl: process.env.BENCH_DATABASE_URL, schema }),
  })
  const { db } = opened
  try {
    const failed = mix === 'failed' ? ROWS : 0
    const unfinished = mix === 'failed' ? 1_000 : ROWS
    await sql`insert into jobs (id, kind, payload, status, run_at, attempts, max_attempts, created_at, updated_at)
      select 'job_' || g, 'bench', '{}'::jsonb,
        case when g <= ${failed} then 'failed' when g % 3 = 0 then 'running' else 'queued' end,
        now() + ((g % 2) * interval '1 hour') - interval '30 minutes', 1, 10, now(), now()
      from generate_series(1, ${failed + unfinished}) g`.execute(db)
    await sql`analyze jobs`.execute(db)
    const registry = new Registry()
    createJobMetrics(registry, { db, clock: { now: () => new Date() } } as never)
    const times: number[] = []
    for (let i = 0; i < SCRAPES + 3; i += 1) {
      const started = performance.now()
      await registry.metrics()
      if (i >= 3) {
        times.push(performance.now() - started)
      }
    }
    console.log(
      JSON.stringify({
        engine,
        mix,
        rows: failed + unfinished,
        p50Ms: round(
          percentile(
            times.sort((a, b) => a - b),
            50,
          ),
        ),
        maxMs: round(Math.max(...times)),
        load1: round(loadavg()[0] ?? 0),
      }),
    )
  } finally {
    if (schema) {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db)
    }
    await opened.close()
    if (dataDir) {
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}

for (const mix of ['backlog', 'failed'] as const) {
  await measure('pglite', mix)
  if (process.env.BENCH_DATABASE_URL) {
    await measure('postgres', mix)
  }
}
