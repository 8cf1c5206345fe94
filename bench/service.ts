// Merchant service benchmarks, written to bench/results/service.json:
// 1. Ledger write throughput: 32 concurrent writers posting transfers between merchant accounts
//    on PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL; skipped when neither is set) and,
//    for comparison, on PGlite (serialised). After each run: zero negative balances and
//    checkLedgerInvariants() empty, or the benchmark fails.
// 2. Read path under load: p50/p99 of GET /balance and GET /balance/transactions from autocannon
//    against the started service, on PGlite and (when configured) PostgreSQL.
// BENCH_DURATION (seconds per measurement, default 10), BENCH_CONNECTIONS (autocannon, default 10).
import { mkdir, writeFile } from 'node:fs/promises'
import { serve } from '@hono/node-server'
import { isAppError } from '@tollgate/core'
import {
  checkLedgerInvariants,
  createApiKey,
  createApp,
  createMerchant,
  createPendingTransfer,
  createRateLimiter,
  type Deps,
  merchantAccount,
  type OpenedDatabase,
  postPendingTransfer,
  postTransaction,
} from '@tollgate/service'
import autocannon from 'autocannon'

import { type BenchEngine, createBenchDeps, openBenchDatabase } from './lib/bench-database.js'

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const writers = 32
const merchantCount = 64
const startingBalance = 1_000_000_000n // 1,000 USDT in minor units
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL

type Engine = BenchEngine

function openEngine(engine: Engine): Promise<OpenedDatabase> {
  return openBenchDatabase(engine, { postgresUrl, poolSize: writers + 8 })
}

async function createFundedMerchants(deps: Deps, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const { id } = await createMerchant(deps, { name: `bench ${i}` })
    await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: `bench-fund-${id}`,
      legs: [
        { debit: 'sandbox:funding', credit: merchantAccount(id), amount: startingBalance, currency: 'USDT' },
      ],
      source: 'sandbox_funding',
    })
    ids.push(id)
  }
  return ids
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

type Scenario = 'transfers' | 'two-phase'

// 32 writers loop until the deadline; each op is one ledger transaction (single-phase transfer, or
// a reservation then its post). Amounts up to 30% of the starting balance, so overdraft attempts
// (refused with insufficient_balance) happen once balances drift apart.
async function runLedgerWriters(deps: Deps, merchants: string[], scenario: Scenario) {
  const deadline = Date.now() + durationSeconds * 1000
  const latencies: number[] = []
  let committed = 0
  let refused = 0
  const random = (n: number) => Math.floor(Math.random() * n)
  const writer = async () => {
    while (Date.now() < deadline) {
      const from = merchants[random(merchants.length)] ?? ''
      const to = merchants[random(merchants.length)] ?? ''
      if (from === to) {
        continue
      }
      const amount = BigInt(1 + random(Number((startingBalance * 3n) / 10n)))
      const leg = {
        debit: merchantAccount(from),
        credit: merchantAccount(to),
        amount,
        currency: 'USDT' as const,
      }
      const started = performance.now()
      try {
        if (scenario === 'transfers') {
          await postTransaction(deps, {
            environment: 'test',
            idempotencyKey: deps.ids.create('bench'),
            legs: [leg],
            source: 'adjustment',
          })
          committed += 1
        } else {
          const pending = await createPendingTransfer(deps, {
            environment: 'test',
            idempotencyKey: deps.ids.create('bench'),
            legs: [leg],
            source: 'payout',
          })
          await postPendingTransfer(deps, { environment: 'test', transferId: pending.transfers[0]?.id ?? '' })
          committed += 2
        }
      } catch (error) {
        if (!isAppError(error, 'insufficient_balance')) {
          throw error
        }
        refused += 1
      }
      latencies.push(performance.now() - started)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: writers }, writer))
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    scenario,
    writers,
    merchants: merchants.length,
    seconds: Math.round(seconds * 10) / 10,
    committedLedgerTransactions: committed,
    refusedInsufficientBalance: refused,
    ledgerTransactionsPerSecond: Math.round(committed / seconds),
    operationLatencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
  }
}

const round = (n: number) => Math.round(n * 100) / 100

async function assertLedgerHealthy(
  deps: Deps,
): Promise<{ negativeBalances: number; invariantViolations: number }> {
  const negative = await deps.db
    .selectFrom('ledger_accounts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('debits_must_not_exceed_credits', '=', true)
    .where((eb) => eb(eb('debits_posted', '+', eb.ref('debits_pending')), '>', eb.ref('credits_posted')))
    .executeTakeFirstOrThrow()
  const violations = await checkLedgerInvariants(deps)
  if (Number(negative.n) !== 0 || violations.length > 0) {
    throw new Error(`ledger unhealthy after the benchmark: ${negative.n} negative, ${violations.join('; ')}`)
  }
  return { negativeBalances: 0, invariantViolations: 0 }
}

async function benchLedger(engine: Engine) {
  const opened = await openEngine(engine)
  try {
    const deps = createBenchDeps(opened)
    const merchants = await createFundedMerchants(deps, merchantCount)
    const results = []
    for (const scenario of ['transfers', 'two-phase'] as const) {
      const result = await runLedgerWriters(deps, merchants, scenario)
      const health = await assertLedgerHealthy(deps)
      console.log(
        `ledger ${engine} ${scenario}: ${result.ledgerTransactionsPerSecond} ledger tx/s (${result.refusedInsufficientBalance} refused overdrafts), p50 ${result.operationLatencyMs.p50} ms, p99 ${result.operationLatencyMs.p99} ms`,
      )
      results.push({ engine, ...result, ...health })
    }
    return results
  } finally {
    await opened.close()
  }
}

async function benchReadPath(engine: Engine) {
  const opened = await openEngine(engine)
  const deps = createBenchDeps(opened)
  const [merchantId = ''] = await createFundedMerchants(deps, 2)
  const key = await createApiKey(deps, { merchantId, environment: 'test' })
  // 500 balance transactions to page through.
  for (let i = 0; i < 500; i++) {
    await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: `bench-seed-${i}`,
      legs: [
        { debit: 'sandbox:funding', credit: merchantAccount(merchantId), amount: 1_000n, currency: 'USDT' },
      ],
      source: 'sandbox_funding',
    })
  }
  const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
  const server = await new Promise<{ port: number; close: () => void }>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ port: info.port, close: () => s.close() }),
    )
  })
  const results = []
  try {
    for (const path of ['/api/v1/balance', '/api/v1/balance/transactions?size=20&page=3']) {
      const options = {
        url: `http://127.0.0.1:${server.port}${path}`,
        connections,
        headers: { 'x-api-key': key.key },
      }
      await autocannon({ ...options, duration: 2 }) // warm-up: JIT and query plans
      const r = await autocannon({ ...options, duration: durationSeconds })
      console.log(
        `http ${engine} ${path}: p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.requests.average} req/s`,
      )
      if (r.non2xx > 0 || r.errors > 0) {
        throw new Error(`${path}: ${r.non2xx} non-2xx responses, ${r.errors} errors`)
      }
      results.push({
        engine,
        path,
        connections,
        seconds: durationSeconds,
        requests: r.requests.total,
        requestsPerSecond: r.requests.average,
        latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      })
    }
  } finally {
    server.close()
    await opened.close()
  }
  return results
}

const engines: Engine[] = postgresUrl ? ['postgres', 'pglite'] : ['pglite']
if (!postgresUrl) {
  console.log('BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL runs skipped')
}
const ledger = []
const http = []
for (const engine of engines) {
  ledger.push(...(await benchLedger(engine)))
  http.push(...(await benchReadPath(engine)))
}
const output = {
  benchmark: 'service',
  node: process.version,
  date: new Date().toISOString(),
  postgres: postgresUrl ? 'measured' : 'skipped (set BENCH_DATABASE_URL)',
  ledger,
  http,
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/service.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`)
console.log('wrote bench/results/service.json')
