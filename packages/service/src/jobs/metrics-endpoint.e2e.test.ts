import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { COUNT_CAP } from './job-metrics.js'

// `/metrics` behind a bearer token and a scrape whose cost does not grow with the jobs table
// (issue 36 item 7).
const TOKEN = 'm'.repeat(40)

describeEachDatabase('/metrics', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb(), { metricsToken: TOKEN })
  })

  const scrape = (authorization?: string) =>
    h.request('/metrics', {
      key: null,
      ...(authorization ? { headers: { Authorization: authorization } } : {}),
    })

  test('needs the bearer token', async () => {
    const open = await scrape()
    expect(open.status).toBe(401)
    expect(open.headers.get('WWW-Authenticate')).toBe('Bearer')
    expect((await scrape('Bearer wrong')).status).toBe(401)
    expect((await scrape(TOKEN)).status).toBe(401)
    const ok = await scrape(`Bearer ${TOKEN}`)
    expect(ok.status).toBe(200)
    expect(await ok.text()).toContain('jobs_queue_depth')
  })

  test('counts each state through its index, up to the cap', async () => {
    const db = getDb()
    await sql`delete from jobs where kind = 'metrics-test'`.execute(db)
    const insert = (count: number, status: string, runAt: string) =>
      sql`insert into jobs (id, kind, payload, status, run_at, created_at, updated_at)
        select 'job_metrics_' || ${status} || ${runAt} || '_' || g, 'metrics-test', '{}'::jsonb, ${status},
          now() + ${runAt}::interval, now(), now()
        from generate_series(1, ${count}) g`.execute(db)
    await insert(3, 'queued', '-1 minute')
    await insert(2, 'queued', '1 hour')
    await insert(1, 'running', '-1 minute')
    await insert(COUNT_CAP + 5, 'failed', '-1 minute')
    const text = await (await scrape(`Bearer ${TOKEN}`)).text()
    const depth = (state: string) =>
      Number(new RegExp(`jobs_queue_depth\\{state="${state}"\\} (\\d+)`).exec(text)?.[1])
    expect(depth('due')).toBeGreaterThanOrEqual(3)
    expect(depth('scheduled')).toBeGreaterThanOrEqual(2)
    expect(depth('running')).toBeGreaterThanOrEqual(1)
    // The failed rows are counted up to the cap, not scanned to the end.
    expect(depth('failed')).toBe(COUNT_CAP)
    await sql`delete from jobs where kind = 'metrics-test'`.execute(db)
  })

  test('production without a token serves no /metrics; the sandbox default stays open', async () => {
    const off = await createHarness(getDb(), { metricsToken: null })
    expect((await off.request('/metrics', { key: null })).status).toBe(404)
    const sandbox = await createHarness(getDb())
    expect((await sandbox.request('/metrics', { key: null })).status).toBe(200)
  })
})
