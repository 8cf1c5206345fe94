// Payout benchmarks, written to bench/results/payouts.json:
// 1. POST /payouts latency for NGN bank payouts: p50/p99 from autocannon with 32 connections
//    against the started service on PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL;
//    skipped when neither is set) and, for comparison, on PGlite. Every request is a new payout
//    (reserve, rail call, post), and afterwards: every payout final, no negative balance,
//    checkLedgerInvariants() empty, or the benchmark fails.
// 2. Crypto payouts settled per second: 100 concurrent POST /payouts of USDC on the devnet's Base
//    (anvil) through the rails' fee-payer pool, from the first request until every payout is
//    final; zero failures required. On PostgreSQL when configured, else PGlite.
// The bank rail is the sandbox provider (its answers are local database writes); its callbacks are
// fired after the measurement, and every payout must then be final.
// BENCH_DURATION (seconds per measurement, default 10), BENCH_CONNECTIONS (default 32).
import { mkdir, writeFile } from 'node:fs/promises'
import { serve } from '@hono/node-server'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
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
  sandboxPayoutAccounts,
  sandboxPayoutHolder,
  setPayoutDailyLimit,
  systemClock,
} from '@tollgate/service'
import autocannon from 'autocannon'

import { type BenchEngine, openBenchDatabase } from './lib/bench-database.js'

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const accountNumber = sandboxPayoutAccounts.success

type Engine = BenchEngine

function openEngine(engine: Engine): Promise<OpenedDatabase> {
  return openBenchDatabase(engine, { postgresUrl, poolSize: connections + 8 })
}

async function benchFiatPayouts(engine: Engine) {
  const opened = await openEngine(engine)
  const base = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  // Provider callbacks are fired after the measurement (below), not by a timer during it.
  const rails = createRails(base, { fiat: { callbackDelayMs: 3_600_000 } })
  const deps: Deps = { ...base, rails, settings: createDefaultSettings() }
  const merchant = await createMerchant(deps, { name: sandboxPayoutHolder })
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
    // Requests still in flight when autocannon stopped finish on the server; then every transfer's
    // callback is fired (the job runner's work) and every payout must end final.
    await waitForQuiet(deps)
    const processing = await deps.db
      .selectFrom('payouts')
      .select('id')
      .where('status', '=', 'processing')
      .execute()
    for (const { id } of processing) {
      await rails.sandboxControls?.completeFiatTransfer({ id })
    }
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
      `POST /payouts ${engine}: p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.requests.average} payouts/s, ${r.timeouts} timeouts`,
    )
    return {
      engine,
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

// Waits until no payout is still pending (requests autocannon abandoned at its deadline).
async function waitForQuiet(deps: Deps): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const pending = await deps.db
      .selectFrom('payouts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow()
    if (Number(pending.n) === 0) {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const cryptoPayouts = 100
const BASE = 'eip155:84532'

async function benchCryptoPayouts(engine: Engine) {
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  const opened = await openEngine(engine)
  const base = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const rails = createRails(base, {
    masterSeed: 'e9'.repeat(64),
    networks: devnet.networks,
    pollIntervalMs: 50,
  })
  try {
    const deps: Deps = { ...base, rails, settings: createDefaultSettings() }
    const treasury = rails.crypto.getTreasury('test', 'base')
    if (!treasury) {
      throw new Error('no treasury on base')
    }
    await devnet.fund({ network: BASE, address: treasury.address, amount: 10n ** 21n })
    await devnet.fund({ network: BASE, address: treasury.address, asset: 'USDC', amount: 10n ** 12n })
    for (const payer of treasury.feePayers) {
      await devnet.fund({ network: BASE, address: payer, amount: 10n ** 20n })
    }
    await rails.start()
    const merchant = await createMerchant(deps, { name: 'bench crypto' })
    await fundBalance(deps, { merchantId: merchant.id, currency: 'USDC', amount: '100000' })
    const key = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
    const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
    const to = '0x000000000000000000000000000000000000b0b0'
    const saved = await createRecipient(deps, {
      merchantId: merchant.id,
      environment: 'test',
      recipient: { type: 'crypto_address', details: { chain: 'base', address: to } },
    })
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: cryptoPayouts }, () =>
        app.request('/api/v1/payouts', {
          method: 'POST',
          headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
          body: JSON.stringify({ currency: 'USDC', recipientId: saved.recipient.id, amount: '1' }),
        }),
      ),
    )
    const accepted = performance.now()
    if (answers.some((res) => res.status !== 201)) {
      throw new Error(`crypto payouts: ${answers.filter((r) => r.status !== 201).length} not accepted`)
    }
    let final = { success: 0, failed: 0 }
    for (let i = 0; i < 2400; i++) {
      const rows = await deps.db
        .selectFrom('payouts')
        .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
        .groupBy('status')
        .execute()
      const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
      final = { success: by.success ?? 0, failed: by.failed ?? 0 }
      if (final.success + final.failed === cryptoPayouts) {
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    const seconds = (performance.now() - started) / 1000
    if (final.success !== cryptoPayouts) {
      throw new Error(
        `crypto payouts: ${final.success} succeeded, ${final.failed} failed of ${cryptoPayouts}`,
      )
    }
    const settledPerSecond = Math.round((cryptoPayouts / seconds) * 10) / 10
    console.log(
      `crypto payouts ${engine}: ${cryptoPayouts} settled in ${seconds.toFixed(2)} s = ${settledPerSecond}/s (all accepted after ${((accepted - started) / 1000).toFixed(2)} s), 0 failures`,
    )
    return {
      engine,
      chain: 'base (devnet anvil)',
      concurrentRequests: cryptoPayouts,
      seconds: Math.round(seconds * 100) / 100,
      acceptedAfterSeconds: Math.round(((accepted - started) / 1000) * 100) / 100,
      settledPerSecond,
      failures: final.failed,
    }
  } finally {
    await rails.stop()
    await opened.close()
    await devnet.stop()
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
const crypto = [await benchCryptoPayouts(engines[0] ?? 'pglite')]
const output = {
  benchmark: 'payouts',
  node: process.version,
  date: new Date().toISOString(),
  postgres: postgresUrl ? 'measured' : 'skipped (set BENCH_DATABASE_URL)',
  fiat,
  crypto,
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/payouts.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`)
console.log('wrote bench/results/payouts.json')
