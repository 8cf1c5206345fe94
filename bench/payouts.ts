// Payout benchmarks, written to bench/results/payouts.json (docs/payouts.md "Benchmarks"):
// 1. POST /payouts latency for NGN bank payouts: p50/p99 from autocannon with 32 connections
//    against the started service on PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL;
//    skipped when neither is set) and, for comparison, on PGlite. Every request is a new payout
//    (reserve, rail call, post), and afterwards: every payout final, no negative balance,
//    checkLedgerInvariants() empty, or the benchmark fails. Statements and CPU per payout too.
// 2. Crypto payouts settled per second: 100 concurrent POST /payouts (HTTP, one connection each) of
//    1 USDC on the devnet's Base (anvil, automine) through the rails' fee-payer pool, with the
//    sandbox's poll interval, from the first request until every payout is `success`. An RPC proxy
//    in a child process counts what reaches the node (every eth_sendRawTransaction, nonce errors);
//    on-chain, the pool's nonces must move by exactly 100 and the recipient receive 100 USDC. Zero
//    failures and zero nonce errors are required. Statements, RPC calls and CPU (service, anvil) per
//    payout are reported with the load average; BENCH_CPU_PROFILE=file writes a CPU profile of the
//    measured window, BENCH_TRACE=1 prints the statements of one payout. On PostgreSQL when set.
// The bank rail is the sandbox provider (its answers are local database writes); its callbacks are
// fired after the measurement, and every payout must then be final.
// BENCH_DURATION (seconds per fiat measurement, default 10), BENCH_CONNECTIONS (default 32),
// BENCH_ONLY=fiat|crypto, BENCH_CRYPTO_PAYOUTS (default 100).
import { fork } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
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
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely'
import { type Address, createPublicClient, erc20Abi, http } from 'viem'

import { type BenchEngine, openBenchDatabase } from './lib/bench-database.js'
import { round } from './lib/stats.js'

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const accountNumber = sandboxPayoutAccounts.success

type Engine = BenchEngine

const poolSize = connections + 8

function openEngine(engine: Engine): Promise<OpenedDatabase> {
  return openBenchDatabase(engine, { postgresUrl, poolSize })
}

async function benchFiatPayouts(engine: Engine) {
  const opened = await openEngine(engine)
  const statements = countStatements()
  const base = {
    db: opened.db.withPlugin(statements),
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
    const statements0 = statements.count
    const cpu0 = process.cpuUsage()
    const r = await autocannon({ ...options, duration: durationSeconds })
    const cpu = process.cpuUsage(cpu0)
    const measuredStatements = statements.count - statements0
    const loadAverage = loadavg().map(round)
    // A non-2xx answer is a failure; client timeouts (10 s, on a loaded machine) are recorded.
    if (r.non2xx > 0) {
      throw new Error(`POST /payouts: ${r.non2xx} non-2xx responses`)
    }
    // Requests still in flight when autocannon stopped finish on the server; every transfer's callback
    // is fired (the job runner's work), again for payouts whose transfer did not exist yet, until every
    // payout is final.
    const countUnfinished = async () =>
      deps.db
        .selectFrom('payouts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('status', 'not in', ['success', 'failed'])
        .executeTakeFirstOrThrow()
    let unfinished = await countUnfinished()
    for (let i = 0; i < 200 && Number(unfinished.n) > 0; i++) {
      const processing = await deps.db
        .selectFrom('payouts')
        .select('id')
        .where('status', '=', 'processing')
        .execute()
      for (const { id } of processing) {
        // Not made yet (its request is still running) or completed meanwhile: the next round sees it.
        await rails.sandboxControls?.completeFiatTransfer({ id }).catch(() => undefined)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      unfinished = await countUnfinished()
    }
    const violations = await checkLedgerInvariants(deps)
    if (Number(unfinished.n) !== 0 || violations.length > 0) {
      throw new Error(`after the benchmark: ${unfinished.n} unfinished payouts; ${violations.join('; ')}`)
    }
    console.log(
      `POST /payouts ${engine}: p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.requests.average} payouts/s, ${r.timeouts} timeouts, load ${loadAverage.join(' ')}`,
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
      // Per answered request, while autocannon ran (requests it left in flight are not counted).
      statementsPerPayout: round(measuredStatements / Math.max(1, r.requests.total)),
      cpuMsPerPayoutWithClient: round((cpu.user + cpu.system) / 1000 / Math.max(1, r.requests.total)),
      loadAverage,
      unfinishedPayouts: 0,
      invariantViolations: 0,
    }
  } finally {
    server.close()
    await opened.close()
  }
}

const cryptoPayouts = Number(process.env.BENCH_CRYPTO_PAYOUTS ?? 100)
const BASE = 'eip155:84532'

// Counts statements sent to the database (BEGIN/COMMIT excluded): every compiled query passes here.
function countStatements(): KyselyPlugin & { count: number; trace: string[] | undefined } {
  return {
    count: 0,
    trace: undefined,
    transformQuery(args) {
      this.count++
      this.trace?.push(describeQuery(args.node))
      return args.node
    },
    transformResult: async (args) => args.result,
  }
}

// "select payouts", "update crypto_sends", …: what BENCH_TRACE=1 prints for the warm-up payout.
function describeQuery(node: RootOperationNode): string {
  const json = JSON.stringify(node, (_k, v) => (typeof v === 'bigint' ? String(v) : v))
  const table = /"identifier":\{"kind":"IdentifierNode","name":"([a-z_0-9]+)"/.exec(json)?.[1] ?? ''
  return `${node.kind.replace(/QueryNode$|Node$/, '')} ${table}`.trim()
}

// The counting JSON-RPC proxy (lib/counting-rpc-proxy.ts) in a child process in front of `target`.
async function startCountingProxy(target: string) {
  const child = fork(fileURLToPath(new URL('./lib/counting-rpc-proxy.ts', import.meta.url)), [target], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url))
    child.once('error', reject)
  })
  return {
    url,
    pid: child.pid ?? 0,
    counts: () =>
      new Promise<ProxyCounts>((resolve) => {
        child.once('message', (m) => resolve((m as { counts: ProxyCounts }).counts))
        child.send('counts')
      }),
    close: () => {
      child.disconnect()
    },
  }
}
type ProxyCounts = {
  requests: number
  sendRawTransaction: number
  nonceErrors: number
  otherSendErrors: number
}

// CPU seconds a process has used (utime + stime from /proc; Linux only, else 0).
async function processCpuSeconds(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

async function benchCryptoPayouts(engine: Engine) {
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  const base = devnet.networks[BASE]
  if (!base) {
    throw new Error('devnet without base')
  }
  const proxy = await startCountingProxy(base.rpcUrl)
  const opened = await openEngine(engine)
  const statements = countStatements()
  const deps0 = {
    db: opened.db.withPlugin(statements),
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const rails = createRails(deps0, {
    masterSeed: 'e9'.repeat(64),
    networks: { ...devnet.networks, [BASE]: { ...base, rpcUrl: proxy.url } },
    // The sandbox's watcher and receipt poll interval (start-sandbox.ts).
    pollIntervalMs: 250,
  })
  const deps: Deps = { ...deps0, rails, settings: createDefaultSettings() }
  const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
  const server = await new Promise<{ port: number; close: () => void }>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ port: info.port, close: () => s.close() }),
    )
  })
  const client = createPublicClient({ transport: http(base.rpcUrl) })
  try {
    const treasury = rails.crypto.getTreasury('test', 'base')
    const usdc = base.assets.USDC?.address as Address | undefined
    if (!treasury || !usdc) {
      throw new Error('no treasury or USDC on base')
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
    const to = '0x000000000000000000000000000000000000b0b0' as Address
    const saved = await createRecipient(deps, {
      merchantId: merchant.id,
      environment: 'test',
      recipient: { type: 'crypto_address', details: { chain: 'base', address: to } },
    })
    const url = `http://127.0.0.1:${server.port}/api/v1/payouts`
    const post = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
        body: JSON.stringify({ currency: 'USDC', recipientId: saved.recipient.id, amount: '1' }),
      }).then(async (res) => ({ status: res.status, body: await res.text() }))
    // Warm-up, not counted: JIT, query plans, the relayer's nonces and fees, and the database pool's
    // connections (opened by as many concurrent payouts as the pool holds).
    statements.trace = process.env.BENCH_TRACE ? [] : undefined
    const warm = await post()
    if (warm.status !== 201) {
      throw new Error(`warm-up payout: ${warm.status} ${warm.body}`)
    }
    await waitForFinal(opened.db, 1)
    if (statements.trace) {
      console.log(statements.trace.join('\n'))
      statements.trace = undefined
    }
    const warmUp = 1 + poolSize
    await Promise.all(Array.from({ length: poolSize }, post))
    await waitForFinal(opened.db, warmUp)
    const balanceOf = () =>
      client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [to] })
    const nonceOf = (address: string) =>
      client.getTransactionCount({ address: address as Address, blockTag: 'latest' })
    const counted = await proxy.counts()
    const before = {
      balance: await balanceOf(),
      nonces: await Promise.all(treasury.feePayers.map(nonceOf)),
      ...counted,
      statements: statements.count,
      anvilCpu: await processCpuSeconds(Object.values(devnet.evm?.pids ?? {})[0] ?? 0),
    }
    const profiler = process.env.BENCH_CPU_PROFILE ? await startProfile() : undefined
    const waits = engine === 'postgres' ? sampleLockWaits(opened.db) : undefined
    const cpu0 = process.cpuUsage()
    const started = performance.now()
    const answers = await Promise.all(Array.from({ length: cryptoPayouts }, post))
    const accepted = performance.now()
    const notAccepted = answers.filter((r) => r.status !== 201)
    if (notAccepted.length > 0) {
      throw new Error(`crypto payouts: ${notAccepted.length} not accepted, e.g. ${notAccepted[0]?.body}`)
    }
    const final = await waitForFinal(opened.db, cryptoPayouts + warmUp)
    const seconds = (performance.now() - started) / 1000
    const cpu = process.cpuUsage(cpu0)
    const lockWaits = await waits?.stop()
    await profiler?.stop(process.env.BENCH_CPU_PROFILE ?? '')
    const anvilCpu =
      (await processCpuSeconds(Object.values(devnet.evm?.pids ?? {})[0] ?? 0)) - before.anvilCpu
    const counts = await proxy.counts()
    const statementsPerPayout = (statements.count - before.statements) / cryptoPayouts
    // On-chain: the recipient got every payout once, and the pool's nonces moved by one per payout.
    const received = (await balanceOf()) - before.balance
    const nonces = await Promise.all(treasury.feePayers.map(nonceOf))
    const transactions = nonces.reduce((sum, n, i) => sum + n - (before.nonces[i] ?? 0), 0)
    const result = {
      engine,
      chain: 'base (devnet anvil, automine)',
      concurrentRequests: cryptoPayouts,
      feePayerKeys: treasury.feePayers.length,
      seconds: round(seconds),
      acceptedAfterSeconds: round((accepted - started) / 1000),
      settledPerSecond: round(cryptoPayouts / seconds),
      success: final.success - warmUp,
      failures: final.failed,
      nonceErrors: counts.nonceErrors - before.nonceErrors,
      otherSendErrors: counts.otherSendErrors - before.otherSendErrors,
      sendRawTransactions: counts.sendRawTransaction - before.sendRawTransaction,
      rpcRequestsPerPayout: round((counts.requests - before.requests) / cryptoPayouts),
      onChain: {
        feePayerTransactions: transactions,
        receivedUsdc: (Number(received) / 1e6).toString(),
        expectedUsdc: String(cryptoPayouts),
      },
      statementsPerPayout: round(statementsPerPayout),
      // Mean over 100 ms samples of the measured window: the service's connections in a statement or
      // transaction, and how many of them wait for a row lock another transaction holds.
      ...(lockWaits ? { connections: lockWaits } : {}),
      serviceCpuMsPerPayout: round((cpu.user + cpu.system) / 1000 / cryptoPayouts),
      anvilCpuMsPerPayout: round((anvilCpu * 1000) / cryptoPayouts),
      loadAverage: loadavg().map(round),
    }
    console.log(JSON.stringify(result))
    if (
      result.success !== cryptoPayouts ||
      result.failures !== 0 ||
      result.nonceErrors !== 0 ||
      result.onChain.feePayerTransactions !== cryptoPayouts ||
      received !== BigInt(cryptoPayouts) * 10n ** 6n
    ) {
      throw new Error('crypto payouts: not every payout paid exactly once without errors (see above)')
    }
    return result
  } finally {
    server.close()
    await rails.stop()
    proxy.close()
    await opened.close()
    await devnet.stop()
  }
}

// Polls until `expected` payouts are final (success or failed), for at most two minutes.
// (On the database without the statement counter: the polling is the benchmark's, not the service's.)
async function waitForFinal(db: Deps['db'], expected: number) {
  let final = { success: 0, failed: 0 }
  for (let i = 0; i < 6000; i++) {
    const rows = await db
      .selectFrom('payouts')
      .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy('status')
      .execute()
    const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
    final = { success: by.success ?? 0, failed: by.failed ?? 0 }
    if (final.success + final.failed >= expected) {
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return final
}

// Samples pg_stat_activity every 100 ms (PostgreSQL only) until stopped.
function sampleLockWaits(db: Deps['db']) {
  const samples: { busy: number; waitingForLock: number }[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const { rows } = await sql<{ busy: string; waiting: string }>`
        select count(*) filter (where state <> 'idle') as busy,
               count(*) filter (where wait_event_type = 'Lock') as waiting
        from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
      `.execute(db)
      samples.push({ busy: Number(rows[0]?.busy ?? 0), waitingForLock: Number(rows[0]?.waiting ?? 0) })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      const mean = (f: (x: (typeof samples)[number]) => number) =>
        round(samples.reduce((sum, x) => sum + f(x), 0) / Math.max(1, samples.length))
      return { busy: mean((x) => x.busy), waitingForLock: mean((x) => x.waitingForLock) }
    },
  }
}

// A CPU profile of the measured window only (BENCH_CPU_PROFILE=file.cpuprofile), for Chrome DevTools.
async function startProfile() {
  const session = new Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    )
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: 500 })
  await post('Profiler.start')
  return {
    stop: async (file: string) => {
      const { profile } = (await post('Profiler.stop')) as { profile: object }
      await writeFile(file, JSON.stringify(profile))
      session.disconnect()
    },
  }
}

const engines: Engine[] = postgresUrl ? ['postgres', 'pglite'] : ['pglite']
if (!postgresUrl) {
  console.log('BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL runs skipped')
}
const only = process.env.BENCH_ONLY
const fiat = []
if (only !== 'crypto') {
  for (const engine of engines) {
    fiat.push(await benchFiatPayouts(engine))
  }
}
const crypto = only === 'fiat' ? [] : [await benchCryptoPayouts(engines[0] ?? 'pglite')]
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
