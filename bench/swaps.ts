// Swap benchmark, written to bench/results/swaps.json: 32 concurrent clients, each looping
// "create a quotation, execute it" (distinct quotations) on PostgreSQL (BENCH_DATABASE_URL, else
// TEST_DATABASE_URL; skipped when neither is set) and, for comparison, on PGlite (serialised).
// Merchants start with a balance some swaps exceed, so refused overdrafts happen too; afterwards
// zero negative balances and checkLedgerInvariants() empty, or the benchmark fails.
// BENCH_DURATION (seconds per engine, default 10).
import { mkdir, writeFile } from 'node:fs/promises'
import { isAppError } from '@tollgate/core'
import {
  checkLedgerInvariants,
  createMerchant,
  createSwapQuotation,
  executeSwap,
  merchantAccount,
  type OpenedDatabase,
  postTransaction,
} from '@tollgate/service'
import { type BenchEngine, createBenchDeps, openBenchDatabase } from './lib/bench-database.js'

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const clients = 32
const merchantCount = 32
const startingBalance = 5_000_000n // 5 USDT
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL

type Engine = BenchEngine

function openEngine(engine: Engine): Promise<OpenedDatabase> {
  return openBenchDatabase(engine, { postgresUrl, poolSize: clients + 8 })
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
const round = (n: number) => Math.round(n * 100) / 100

async function bench(engine: Engine) {
  const opened = await openEngine(engine)
  try {
    const deps = createBenchDeps(opened)
    const merchants: string[] = []
    for (let i = 0; i < merchantCount; i++) {
      const { id } = await createMerchant(deps, { name: `swap bench ${i}` })
      await postTransaction(deps, {
        environment: 'test',
        idempotencyKey: `swap-bench-fund-${id}`,
        legs: [
          {
            debit: 'sandbox:funding',
            credit: merchantAccount(id),
            amount: startingBalance,
            currency: 'USDT',
          },
        ],
        source: 'sandbox_funding',
      })
      merchants.push(id)
    }
    const deadline = Date.now() + durationSeconds * 1000
    const latencies: number[] = []
    let executed = 0
    let refused = 0
    const client = async (index: number) => {
      const merchantId = merchants[index % merchants.length] ?? ''
      while (Date.now() < deadline) {
        // 0.01 to 2 USDT: a merchant's 5 USDT runs out within the run, so overdrafts are attempted.
        const sourceAmount = BigInt(10_000 + Math.floor(Math.random() * 1_990_000))
        const quotation = await createSwapQuotation(deps, {
          merchantId,
          environment: 'test',
          fromCurrency: 'USDT',
          toCurrency: 'NGN',
          sourceAmount,
        })
        const started = performance.now()
        try {
          await executeSwap(deps, {
            merchantId,
            environment: 'test',
            quotationId: quotation.id,
            format: 'current',
          })
          executed += 1
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
    await Promise.all(Array.from({ length: clients }, (_, i) => client(i)))
    const seconds = (performance.now() - started) / 1000
    latencies.sort((a, b) => a - b)
    const negative = await deps.db
      .selectFrom('ledger_accounts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('debits_must_not_exceed_credits', '=', true)
      .where((eb) => eb(eb('debits_posted', '+', eb.ref('debits_pending')), '>', eb.ref('credits_posted')))
      .executeTakeFirstOrThrow()
    const violations = await checkLedgerInvariants(deps)
    if (Number(negative.n) !== 0 || violations.length > 0) {
      throw new Error(
        `ledger unhealthy after the swap benchmark: ${negative.n} negative, ${violations.join('; ')}`,
      )
    }
    const result = {
      engine,
      clients,
      merchants: merchantCount,
      seconds: round(seconds),
      executedSwaps: executed,
      refusedInsufficientBalance: refused,
      swapExecutionsPerSecond: Math.round(executed / seconds),
      executeLatencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
      negativeBalances: 0,
      invariantViolations: 0,
    }
    console.log(
      `swaps ${engine}: ${result.swapExecutionsPerSecond} executions/s (${refused} refused overdrafts), execute p50 ${result.executeLatencyMs.p50} ms, p99 ${result.executeLatencyMs.p99} ms`,
    )
    return result
  } finally {
    await opened.close()
  }
}

const engines: Engine[] = postgresUrl ? ['postgres', 'pglite'] : ['pglite']
if (!postgresUrl) {
  console.log('BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL run skipped')
}
const results = []
for (const engine of engines) {
  results.push(await bench(engine))
}
const output = {
  benchmark: 'swaps',
  node: process.version,
  date: new Date().toISOString(),
  postgres: postgresUrl ? 'measured' : 'skipped (set BENCH_DATABASE_URL)',
  results,
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/swaps.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`)
console.log('wrote bench/results/swaps.json')
