// Payout benchmarks, written to bench/results/payouts.json:
// 1. POST /payouts latency for NGN bank payouts: p50/p99 from autocannon with 32 connections
//    against the started service on PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL;
//    skipped when neither is set) and, for comparison, on PGlite. Every request is a new payout
//    (reserve, rail call, post), and afterwards: every payout final, no negative balance,
//    checkLedgerInvariants() empty, or the benchmark fails.
// The bank rail is the sandbox's when it is built, else the in-test provider the payout tests use
// (recorded as `bankRail` in the results).
// BENCH_DURATION (seconds per measurement, default 10), BENCH_CONNECTIONS (default 32).
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import {
  checkLedgerInvariants,
  createApiKey,
  createApp,
  createDefaultSettings,
  createIdGenerator,
  createLogger,
  createMerchant,
  createRails,
  createRateLimiter,
  createRecipient,
  type Deps,
  fundBalance,
  type OpenedDatabase,
  openDatabase,
  type Rails,
  setPayoutDailyLimit,
  systemClock,
} from '@tollgate/service'
import autocannon from 'autocannon'
import pg from 'pg'
import { createFakePayoutRails } from '../packages/service/src/testing/fake-payout-rails.js'

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const accountNumber = '0123456789'

type Engine = 'pglite' | 'postgres'

async function openBenchDatabase(engine: Engine): Promise<OpenedDatabase> {
  if (engine === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-'))
    const opened = await openDatabase({ dataDir })
    return {
      ...opened,
      close: () => opened.close().then(() => rm(dataDir, { recursive: true, force: true })),
    }
  }
  // A private schema, dropped afterwards, so the benchmark never touches other data on the server.
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`
  const opened = await openDatabase({ databaseUrl: postgresUrl, schema, poolSize: connections + 8 })
  return {
    ...opened,
    close: async () => {
      await opened.close()
      const client = new pg.Client({ connectionString: postgresUrl })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    },
  }
}

// The sandbox bank rail when it is built (it names account holders itself), else the in-test one.
async function createBenchRails(base: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>, merchantName: string) {
  const sandbox = createRails(base)
  try {
    const holder = await sandbox.banks.resolveAccount({ accountNumber, bankCode: '058' })
    return { rails: sandbox, bankRail: 'sandbox', holderName: holder.accountName }
  } catch {
    const fake = createFakePayoutRails(base)
    fake.accountNames.set(accountNumber, merchantName)
    return { rails: fake as Rails, bankRail: 'in-test provider', holderName: merchantName }
  }
}

async function benchFiatPayouts(engine: Engine) {
  const opened = await openBenchDatabase(engine)
  const base = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const { rails, bankRail, holderName } = await createBenchRails(base, 'Bench Merchant')
  const deps: Deps = { ...base, rails, settings: createDefaultSettings() }
  const merchant = await createMerchant(deps, { name: holderName })
  await setPayoutDailyLimit(deps, { merchantId: merchant.id, limitUsd: '100000000' })
  await fundBalance(deps, { merchantId: merchant.id, currency: 'NGN', amount: '1000000000' })
  const key = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
  const { recipient } = await createRecipient(deps, {
    merchantId: merchant.id,
    environment: 'test',
    recipient: { type: 'ngn_bank_account', details: { accountNumber, bankCode: '058' } },
  })
  const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
  const server = await new Promise<{ port: number; close: () => void }>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ port: info.port, close: () => s.close() }),
    )
  })
  try {
    const options = {
      url: `http://127.0.0.1:${server.port}/api/v1/payouts`,
      method: 'POST' as const,
      connections,
      headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'NGN', recipientId: recipient.id, amount: '100', narration: 'bench' }),
    }
    await autocannon({ ...options, duration: 2 }) // warm-up: JIT and query plans
    const r = await autocannon({ ...options, duration: durationSeconds })
    // A non-2xx answer is a failure; client timeouts (10 s, on a loaded machine) are recorded.
    if (r.non2xx > 0) {
      throw new Error(`POST /payouts: ${r.non2xx} non-2xx responses`)
    }
    // Requests still in flight when autocannon stopped finish on the server; give them 10 s.
    const countUnfinished = async () =>
      deps.db
        .selectFrom('payouts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('status', 'not in', ['success', 'failed'])
        .executeTakeFirstOrThrow()
    let unfinished = await countUnfinished()
    for (let i = 0; i < 100 && Number(unfinished.n) > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      unfinished = await countUnfinished()
    }
    const violations = await checkLedgerInvariants(deps)
    if (Number(unfinished.n) !== 0 || violations.length > 0) {
      throw new Error(`after the benchmark: ${unfinished.n} unfinished payouts; ${violations.join('; ')}`)
    }
    console.log(
      `POST /payouts ${engine} (${bankRail}): p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.requests.average} payouts/s, ${r.timeouts} timeouts`,
    )
    return {
      engine,
      bankRail,
      path: 'POST /api/v1/payouts (NGN bank)',
      connections,
      seconds: durationSeconds,
      requests: r.requests.total,
      requestsPerSecond: r.requests.average,
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      clientTimeouts: r.timeouts,
      unfinishedPayouts: 0,
      invariantViolations: 0,
    }
  } finally {
    server.close()
    await opened.close()
  }
}

const engines: Engine[] = postgresUrl ? ['postgres', 'pglite'] : ['pglite']
if (!postgresUrl) {
  console.log('BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL runs skipped')
}
const fiat = []
for (const engine of engines) {
  fiat.push(await benchFiatPayouts(engine))
}
const output = {
  benchmark: 'payouts',
  node: process.version,
  date: new Date().toISOString(),
  postgres: postgresUrl ? 'measured' : 'skipped (set BENCH_DATABASE_URL)',
  fiat,
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/payouts.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`)
console.log('wrote bench/results/payouts.json')
