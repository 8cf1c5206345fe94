// Load test of the merchant service's read path: p50/p99 latency of GET /balance and
// GET /balance/transactions from autocannon against a started service on PGlite (and on
// PostgreSQL when BENCH_DATABASE_URL is set). Writes bench/results/service.json.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import {
  createApiKey,
  createApp,
  createIdGenerator,
  createLogger,
  createMerchant,
  createRateLimiter,
  fundSandboxMerchant,
  openDatabase,
  systemClock,
} from '@tollgate/service'
import autocannon from 'autocannon'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const seedTransactions = 200

type EndpointResult = {
  path: string
  requests: number
  requestsPerSecond: number
  latencyMs: { p50: number; p90: number; p99: number; max: number }
  non2xx: number
  errors: number
}

async function benchDatabase(
  label: string,
  databaseUrl: string | undefined,
): Promise<Record<string, unknown>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-'))
  const database = await openDatabase({ databaseUrl, dataDir })
  const deps = {
    db: database.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const merchant = await createMerchant(deps, { name: `bench ${Date.now()}` })
  const key = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
  for (let i = 0; i < seedTransactions / 4; i++) {
    await fundSandboxMerchant(deps, { merchantId: merchant.id })
  }
  const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
  const server = await new Promise<{ port: number; close: () => void }>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ port: info.port, close: () => s.close() }),
    )
  })
  const results: EndpointResult[] = []
  try {
    for (const path of ['/api/v1/balance', '/api/v1/balance/transactions?size=20']) {
      const url = `http://127.0.0.1:${server.port}${path}`
      // Warm-up so JIT and the query plans settle before measuring.
      await autocannon({ url, connections, duration: 2, headers: { 'x-api-key': key.key } })
      const r = await autocannon({
        url,
        connections,
        duration: durationSeconds,
        headers: { 'x-api-key': key.key },
      })
      results.push({
        path,
        requests: r.requests.total,
        requestsPerSecond: r.requests.average,
        latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
        non2xx: r.non2xx,
        errors: r.errors,
      })
      console.log(
        `${label} ${path}: p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.requests.average} req/s, non2xx ${r.non2xx}`,
      )
    }
  } finally {
    server.close()
    await database.close()
    await rm(dataDir, { recursive: true, force: true })
  }
  return {
    database: label,
    connections,
    durationSeconds,
    seededTransactions: seedTransactions,
    endpoints: results,
  }
}

const runs = [await benchDatabase('pglite', undefined)]
if (process.env.BENCH_DATABASE_URL) {
  runs.push(await benchDatabase('postgres', process.env.BENCH_DATABASE_URL))
}
const output = { benchmark: 'service', node: process.version, date: new Date().toISOString(), runs }
await writeFile(new URL('./results/service.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`)
console.log('wrote bench/results/service.json')
