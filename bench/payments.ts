// Payment sessions over HTTP: POST /api/v1/payments (asset, chain and customer given, so each
// request also upserts the customer, allocates the address, locks the rate and queues the expiry
// job) and GET /api/v1/payments/reference/{reference}, p50/p99 at 32 concurrent clients, every
// request with its own input (distinct amounts, customers, references). On PostgreSQL
// (BENCH_DATABASE_URL, else TEST_DATABASE_URL; a private schema dropped afterwards), else PGlite.
// The rails are the session tests' (the real registry, HD deposit addresses and screening, with the
// fixed FX table); no chain node is involved. Targets: p50 <= 15 ms, p99 <= 60 ms. Writes bench/results/payments.json.
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import {
  createApiKey,
  createApp,
  createDefaultSettings,
  createIdGenerator,
  createLogger,
  createMerchant,
  createRateLimiter,
  openDatabase,
  systemClock,
} from '@tollgate/service'
import { createFakeSessionRails } from '@tollgate/service/testing'
import pg from 'pg'
import { Agent } from 'undici'
import { round, runClosedLoop, summarize } from './lib/stats.js'

const here = dirname(fileURLToPath(import.meta.url))
const concurrency = 32
const creates = Number(process.env.BENCH_PAYMENTS_CREATES ?? 3000)
const reads = Number(process.env.BENCH_PAYMENTS_READS ?? 6000)
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 })

async function main() {
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`
  const opened = await openDatabase(
    postgresUrl ? { databaseUrl: postgresUrl, schema, poolSize: concurrency + 8 } : {},
  )
  const base = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const deps = { ...base, rails: createFakeSessionRails(base), settings: createDefaultSettings() }
  const merchant = await createMerchant(deps, { name: 'Bench merchant' })
  const { key } = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
  const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`
  const headers = { 'x-api-key': key, 'content-type': 'application/json' }
  const references: string[] = []
  let failures = 0
  const create = async (i: number) => {
    const res = await fetch(`${url}/payments`, {
      method: 'POST',
      headers,
      dispatcher,
      body: JSON.stringify({
        title: `Order ${i}`,
        amount: `${10 + (i % 990)}.${String(i % 100).padStart(2, '0')}`,
        currency: 'USD',
        asset: 'USDC',
        chain: i % 2 === 0 ? 'base' : 'solana',
        customer: { email: `payer-${i}@example.com` },
        metadata: { orderId: `bench-${i}` },
      }),
    } as RequestInit)
    const body = (await res.json()) as { data?: { reference?: string; payment?: { address?: string } } }
    if (res.status !== 200 || !body.data?.payment?.address || !body.data.reference) {
      failures += 1
      return
    }
    references.push(body.data.reference)
  }
  const read = async (reference: string) => {
    const res = await fetch(`${url}/payments/reference/${reference}`, { headers, dispatcher } as RequestInit)
    const text = await res.text()
    if (res.status !== 200 || !text.includes(reference)) {
      failures += 1
    }
  }
  try {
    // Warm-up: JIT, prepared plans, connection pool.
    await runClosedLoop(range(200, creates), concurrency, create)
    const createRun = await runClosedLoop(range(creates, 0), concurrency, create)
    const readInputs = range(reads, 0).map((i) => references[(i * 7919) % references.length] as string)
    const readRun = await runClosedLoop(readInputs, concurrency, read)
    // One client: the service time of a request without queueing, to read the c32 numbers against.
    const soloCreate = await runClosedLoop(range(300, creates + 200), 1, create)
    const soloRead = await runClosedLoop(readInputs.slice(0, 600), 1, read)
    const result = {
      benchmark: 'payments',
      date: new Date().toISOString(),
      node: process.version,
      database: postgresUrl ? 'postgres' : 'pglite (set BENCH_DATABASE_URL for PostgreSQL)',
      concurrency,
      failures,
      targetsMs: { p50: 15, p99: 60 },
      createSession: {
        requests: creates,
        requestsPerSecond: round(creates / createRun.seconds),
        latencyMs: summarize(createRun.latenciesMs),
      },
      getSessionByReference: {
        requests: reads,
        requestsPerSecond: round(reads / readRun.seconds),
        latencyMs: summarize(readRun.latenciesMs),
      },
      oneClient: {
        createSessionMs: summarize(soloCreate.latenciesMs),
        getSessionByReferenceMs: summarize(soloRead.latenciesMs),
      },
      loadAverage: loadavg().map(round),
    }
    console.log(JSON.stringify(result, null, 2))
    await writeFile(join(here, 'results', 'payments.json'), `${JSON.stringify(result, null, 2)}\n`)
    if (failures > 0) {
      throw new Error(`${failures} requests failed`)
    }
  } finally {
    server.close()
    await dispatcher.close()
    await opened.close()
    if (postgresUrl) {
      const client = new pg.Client({ connectionString: postgresUrl })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    }
  }
}

function range(count: number, offset: number): number[] {
  return Array.from({ length: count }, (_, i) => i + offset)
}

await main()
