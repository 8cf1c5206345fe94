// Payout benchmarks, written to bench/results/payouts.json (docs/payouts.md "Benchmarks"). The
// service runs in a child process (lib/payouts-service.ts: database, rails, HTTP app, job runner), as
// `npm start` runs it; this process is only the load generator and the judge.
// 1. POST /payouts latency for NGN bank payouts: p50/p99 from autocannon with 32 connections
//    against the service on PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL; skipped when
//    neither is set) and, for comparison, on PGlite. Every request is a new payout with its own
//    `reference` (reserve, rail call, post), and afterwards: every payout final, no negative
//    balance, checkLedgerInvariants() empty, or the benchmark fails. Statements and service CPU per
//    payout too.
// 2. Crypto payouts settled per second: 100 concurrent POST /payouts (HTTP, one connection each,
//    each with its own `reference`) of 1 USDC on the devnet's Base (anvil, automine) through the
//    rails' fee-payer pool, with the sandbox's poll interval, from the first request until every
//    payout is `success`. On-chain, the pool's nonces must move by exactly 100 (one mined
//    transaction per payout) and the recipient receive 100 USDC, and zero payouts may fail.
//    BENCH_RPC_PROXY=1 also puts a counting RPC proxy (a child process) between the service and the
//    node, which counts every eth_sendRawTransaction, nonce errors and RPC requests (zero nonce
//    errors then required); it is off by default because it is not in a user's path and its CPU
//    (5-8 ms per payout) is taken from the same cores. Statements and the CPU per payout of each
//    process (service, anvil, proxy when on, load generator) are reported with the load average.
//    On PostgreSQL when set.
// BENCH_CPU_PROFILE=file writes a CPU profile of the service process over the measured window of the
// crypto run (Chrome DevTools format); BENCH_TRACE=1 prints the statements of one crypto payout.
// The bank rail is the sandbox provider (its answers are local database writes); its callbacks are
// fired after the measurement, and every payout must then be final.
// BENCH_DURATION (seconds per fiat measurement, default 10), BENCH_CONNECTIONS (default 32),
// BENCH_ONLY=fiat|crypto, BENCH_CRYPTO_PAYOUTS (default 100).
import { fork } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import autocannon from 'autocannon'
import { type Address, createPublicClient, erc20Abi, http } from 'viem'

import type { BenchEngine } from './lib/bench-database.js'
import type { PayoutsServiceConfig, PayoutsServiceReady } from './lib/payouts-service.js'
import { round } from './lib/stats.js'

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL

type Engine = BenchEngine

const poolSize = connections + 8

// The service (lib/payouts-service.ts) in a child process, as `npm start` runs it.
async function startService(config: PayoutsServiceConfig, onFund?: (p: FundRequest) => Promise<void>) {
  const child = fork(fileURLToPath(new URL('./lib/payouts-service.ts', import.meta.url)), [], {
    execArgv: ['--conditions=tollgate-source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let nextId = 0
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  child.on('message', (raw) => {
    const m = raw as { id?: number; result?: unknown; error?: string; fund?: FundRequest & { id: number } }
    if (m.fund) {
      const request = m.fund
      ;(onFund ?? (() => Promise.reject(new Error('no devnet'))))(request).then(
        () => child.send({ funded: { id: request.id } }),
        (error: unknown) => child.send({ funded: { id: request.id, error: String(error) } }),
      )
      return
    }
    const w = waiting.get(m.id ?? -1)
    waiting.delete(m.id ?? -1)
    if (m.error !== undefined) {
      w?.reject(new Error(`service: ${m.error}`))
    } else {
      w?.resolve(m.result)
    }
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const call = <T>(name: string, ...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject })
      child.send({ id, call: name, args })
    })
  const ready = await call<PayoutsServiceReady>('start', config)
  return {
    ready,
    pid: child.pid ?? 0,
    call,
    stop: async () => {
      await call('stop').catch(() => undefined)
      await exited
    },
  }
}
type FundRequest = { network: string; address: string; asset?: string; amount: string }
type Service = Awaited<ReturnType<typeof startService>>
type Stats = { statements: number; commits: number; cpuMs: number }

// Every request a distinct payout with its own `reference` (the documented idempotency key).
let referenceCounter = 0
const nextReference = () => `BENCH-${process.pid}-${Date.now().toString(36)}-${referenceCounter++}`

async function benchFiatPayouts(engine: Engine) {
  const service = await startService({ engine, postgresUrl, poolSize, mode: 'fiat' })
  const { port, apiKey, recipientId } = service.ready
  try {
    const body = () =>
      JSON.stringify({
        currency: 'NGN',
        recipientId,
        amount: '100',
        narration: 'bench',
        reference: nextReference(),
      })
    const options = {
      url: `http://127.0.0.1:${port}/api/v1/payouts`,
      method: 'POST' as const,
      connections,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      requests: [{ setupRequest: (request: object) => ({ ...request, body: body() }) }],
    }
    await autocannon({ ...options, duration: 2 }) // warm-up: JIT and query plans
    const before = await service.call<Stats>('stats')
    const serviceCpu0 = await processCpuSeconds(service.pid)
    const r = await autocannon({ ...options, duration: durationSeconds })
    const after = await service.call<Stats>('stats')
    const serviceCpu = (await processCpuSeconds(service.pid)) - serviceCpu0
    const loadAverage = loadavg().map(round)
    // A non-2xx answer is a failure; client timeouts (10 s, on a loaded machine) are recorded.
    if (r.non2xx > 0) {
      throw new Error(`POST /payouts: ${r.non2xx} non-2xx responses`)
    }
    // Requests still in flight when autocannon stopped finish in the service; every transfer's callback
    // is then fired until every payout is final, and the ledger checked.
    const { unfinished, violations } = await service.call<{ unfinished: number; violations: string[] }>(
      'finishFiat',
    )
    if (unfinished !== 0 || violations.length > 0) {
      throw new Error(`after the benchmark: ${unfinished} unfinished payouts; ${violations.join('; ')}`)
    }
    console.log(
      `POST /payouts ${engine}: p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.requests.average} payouts/s, ${r.timeouts} timeouts, load ${loadAverage.join(' ')}`,
    )
    const answered = Math.max(1, r.requests.total)
    return {
      engine,
      path: 'POST /api/v1/payouts (NGN bank, a distinct reference each)',
      connections,
      seconds: durationSeconds,
      requests: r.requests.total,
      requestsPerSecond: r.requests.average,
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      clientTimeouts: r.timeouts,
      // Per answered request, while autocannon ran (requests it left in flight are not counted).
      statementsPerPayout: round((after.statements - before.statements) / answered),
      serviceCpuMsPerPayout: round((after.cpuMs - before.cpuMs) / answered),
      serviceProcessCpuMsPerPayout: round((serviceCpu * 1000) / answered),
      loadAverage,
      unfinishedPayouts: 0,
      invariantViolations: 0,
    }
  } finally {
    await service.stop()
  }
}

const cryptoPayouts = Number(process.env.BENCH_CRYPTO_PAYOUTS ?? 100)
const BASE = 'eip155:84532'

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
  const proxy = process.env.BENCH_RPC_PROXY === '1' ? await startCountingProxy(base.rpcUrl) : undefined
  let service: Service | undefined
  const client = createPublicClient({ transport: http(base.rpcUrl) })
  try {
    service = await startService(
      {
        engine,
        postgresUrl,
        poolSize,
        mode: 'crypto',
        network: BASE,
        networks: proxy ? { ...devnet.networks, [BASE]: { ...base, rpcUrl: proxy.url } } : devnet.networks,
      },
      (p) => devnet.fund({ ...p, amount: BigInt(p.amount) }),
    )
    const s = service
    const { port, apiKey, recipientId, treasury } = s.ready
    const usdc = base.assets.USDC?.address as Address | undefined
    if (!treasury || !usdc) {
      throw new Error('no treasury or USDC on base')
    }
    const to = '0x000000000000000000000000000000000000b0b0' as Address
    const url = `http://127.0.0.1:${port}/api/v1/payouts`
    const post = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ currency: 'USDC', recipientId, amount: '1', reference: nextReference() }),
      }).then(async (res) => ({ status: res.status, body: await res.text() }))
    // Warm-up, not counted: JIT, query plans, the relayer's nonces and fees, and the database pool's
    // connections (opened by as many concurrent payouts as the pool holds).
    await s.call('trace', Boolean(process.env.BENCH_TRACE))
    const warm = await post()
    if (warm.status !== 201) {
      throw new Error(`warm-up payout: ${warm.status} ${warm.body}`)
    }
    await waitForFinal(s, 1)
    const trace = await s.call<string[]>('trace', false)
    if (process.env.BENCH_TRACE) {
      console.log(trace.join('\n'))
    }
    const warmUp = 1 + poolSize
    await Promise.all(Array.from({ length: poolSize }, post))
    await waitForFinal(s, warmUp)
    const balanceOf = () =>
      client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [to] })
    const nonceOf = (address: string) =>
      client.getTransactionCount({ address: address as Address, blockTag: 'latest' })
    const anvilPid = Object.values(devnet.evm?.pids ?? {})[0] ?? 0
    const counted = await proxy?.counts()
    const stats0 = await s.call<Stats>('stats')
    const before = {
      balance: await balanceOf(),
      nonces: await Promise.all(treasury.feePayers.map(nonceOf)),
      counted,
      anvilCpu: await processCpuSeconds(anvilPid),
      proxyCpu: proxy ? await processCpuSeconds(proxy.pid) : 0,
      selfCpu: process.cpuUsage(),
    }
    await s.call('startLockWaits')
    if (process.env.BENCH_CPU_PROFILE) {
      await s.call('startProfile')
    }
    const loadAtStart = loadavg().map(round)
    const started = performance.now()
    const answers = await Promise.all(Array.from({ length: cryptoPayouts }, post))
    const accepted = performance.now()
    const notAccepted = answers.filter((r) => r.status !== 201)
    if (notAccepted.length > 0) {
      throw new Error(`crypto payouts: ${notAccepted.length} not accepted, e.g. ${notAccepted[0]?.body}`)
    }
    const final = await waitForFinal(s, cryptoPayouts + warmUp)
    const seconds = (performance.now() - started) / 1000
    const stats1 = await s.call<Stats>('stats')
    const self = process.cpuUsage(before.selfCpu)
    if (process.env.BENCH_CPU_PROFILE) {
      await s.call('stopProfile', process.env.BENCH_CPU_PROFILE)
    }
    const lockWaits = await s.call<{ busy: number; waitingForLock: number } | null>('stopLockWaits')
    const anvilCpu = (await processCpuSeconds(anvilPid)) - before.anvilCpu
    const proxyCpu = proxy ? (await processCpuSeconds(proxy.pid)) - before.proxyCpu : 0
    const counts = await proxy?.counts()
    const delta = (f: (c: ProxyCounts) => number) =>
      counts && before.counted ? f(counts) - f(before.counted) : null
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
      // Counted by the RPC proxy (BENCH_RPC_PROXY=1); null without it. Without the proxy a send that
      // failed for good shows as a failed payout, and a duplicate or missing one in the nonces.
      rpcProxy: Boolean(proxy),
      nonceErrors: delta((c) => c.nonceErrors),
      otherSendErrors: delta((c) => c.otherSendErrors),
      sendRawTransactions: delta((c) => c.sendRawTransaction),
      rpcRequestsPerPayout: counts ? round((delta((c) => c.requests) ?? 0) / cryptoPayouts) : null,
      onChain: {
        feePayerTransactions: transactions,
        receivedUsdc: (Number(received) / 1e6).toString(),
        expectedUsdc: String(cryptoPayouts),
      },
      // The benchmark's own readings of the window (final-status polls every 50 ms, lock sampling)
      // are in these counts: a few statements, well under 1 per payout.
      statementsPerPayout: round((stats1.statements - stats0.statements) / cryptoPayouts),
      // Explicit transactions (BEGIN … COMMIT) committed per payout, autocommit statements not included.
      transactionsPerPayout: round((stats1.commits - stats0.commits) / cryptoPayouts),
      // Mean over 100 ms samples of the measured window: the service's connections in a statement or
      // transaction, and how many of them wait for a row lock another transaction holds.
      ...(lockWaits ? { connections: lockWaits } : {}),
      // CPU per payout of each process on the machine (PostgreSQL's is not measured here).
      cpuMsPerPayout: {
        service: round((stats1.cpuMs - stats0.cpuMs) / cryptoPayouts),
        anvil: round((anvilCpu * 1000) / cryptoPayouts),
        rpcProxy: proxy ? round((proxyCpu * 1000) / cryptoPayouts) : null,
        loadGenerator: round((self.user + self.system) / 1000 / cryptoPayouts),
      },
      loadAverage: loadavg().map(round),
      loadAverageAtStart: loadAtStart,
    }
    console.log(JSON.stringify(result))
    if (
      result.success !== cryptoPayouts ||
      result.failures !== 0 ||
      (result.nonceErrors ?? 0) !== 0 ||
      result.onChain.feePayerTransactions !== cryptoPayouts ||
      received !== BigInt(cryptoPayouts) * 10n ** 6n
    ) {
      throw new Error('crypto payouts: not every payout paid exactly once without errors (see above)')
    }
    return result
  } finally {
    await service?.stop()
    proxy?.close()
    await devnet.stop()
  }
}

// Polls until `expected` payouts are final (success or failed), for at most two minutes.
async function waitForFinal(service: Service, expected: number) {
  let final = { success: 0, failed: 0 }
  for (let i = 0; i < 2400; i++) {
    final = await service.call<{ success: number; failed: number }>('finalCounts')
    if (final.success + final.failed >= expected) {
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return final
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
