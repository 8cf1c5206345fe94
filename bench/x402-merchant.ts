// POST /api/v1/x402/settle of the merchant API next to the bare facilitator's POST /settle, in one
// run, over HTTP on one Base Sepolia anvil, with the same in-process facilitator behind both:
// what the merchant API adds (auth, payTo ownership, the x402_transactions row and the ledger credit
// in one database transaction). A third server, the merchant API over a facilitator client that
// ignores the onSettled hook (the credit after settle returns, the flow before the hook), runs in
// the same rounds. Concurrency 1 and 16, every payment freshly signed by one of 16 payers (never a
// replayed request). Database: PGlite in memory (what `npm start` uses), and PostgreSQL too when
// BENCH_DATABASE_URL is set (in a private schema, dropped afterwards). The servers take turns in
// rounds (A B C, C B A, …) so a load change on the machine hits all alike; each side also reports
// the process CPU time per settle (the facilitator, the service and PGlite all run in
// this process; anvil does not), which load changes far less than latency. Last, the merchant path
// alone (a stub facilitator, no chain, no HTTP): CPU, database time and statements per settle. Writes
// bench/results/x402-merchant.json. The facilitator's settlement store is durable, in the service's
// database, as in everything a user runs (`tollgate facilitator` always opens one, the sandbox puts it
// in the service's database); BENCH_X402_STORE=memory puts it in memory instead (a library-only
// option) and writes bench/results/x402-merchant-memory-store.json. bench/x402-merchant-trace.ts shows where one
// settle's time goes, phase by phase. BENCH_CPU_PROFILE=1 adds, after the measured c16 rounds, one
// profiled c16 run per server and database (BENCH_X402_PROFILE_OPS settles, default 320), written as
// bench/results/x402-merchant-<database>-<server>-c16.cpuprofile (open in Chrome DevTools, or
// summarize with bench/lib/x402-merchant-profile.ts); the measured rounds are not profiled;
// BENCH_X402_PROFILE_CONCURRENCY=1 profiles at c=1 instead. BENCH_X402_WARMUP sets the unmeasured
// settles per server before the rounds (default 4); BENCH_X402_JIT_WARMUP=1 runs the merchant path
// alone once before them (300 settles, stub facilitator, no chain) to compile its code. Each
// side also reports the SQL statements per settle (the facilitator's and the service's, counted by
// the database handle's query log), the part of the process CPU its main thread used (Linux; the rest
// is V8's helper threads: the optimizing compiler and the garbage collector's parallel work), and of
// the statements the credit statements (those writing x402_transactions:
// fewer than one per settle when concurrent credits are coalesced) and how many distinct texts they
// had (distinctCreditStatements); on PostgreSQL, at c16, the mean
// over 50 ms samples of pg_stat_activity of the service's connections busy and waiting for a lock.
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import type { PaymentRequirements } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import {
  createFacilitatorApp,
  createMemorySettlementStore,
  createPostgresSettlementStore,
} from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import { type createApp, openDatabase } from '@tollgate/service'
import { sql } from 'kysely'
import { Agent } from 'undici'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { openBenchDatabase } from './lib/bench-database.js'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { round, runClosedLoop, summarize } from './lib/stats.js'
import { createStubFacilitatorApp } from './lib/stub-x402-merchant.js'
import { startMerchantServers } from './lib/x402-merchant-servers.js'

const here = dirname(fileURLToPath(import.meta.url))
const BASE = 'eip155:84532'
const ROUNDS = Number(process.env.BENCH_X402_ROUNDS ?? 4)
// Settles per server at each concurrency, over all rounds. At c=1 a p50 of 60 settles moved by
// ±15% between servers doing the same work (docs/x402-merchant.md), so c=1 takes 240.
const OPS: Record<number, number> = {
  1: Number(process.env.BENCH_X402_OPS_C1 ?? 240),
  16: Number(process.env.BENCH_X402_OPS_C16 ?? 320),
}
// Unmeasured settles per server before the rounds (default 4). The process's CPU time counts V8's
// helper threads, where the optimizing compiler runs: over the first few hundred settles it is still
// compiling each server's hot paths, more of them for the merchant API (about 1 ms of its extra CPU
// per settle at c=1 with 4). 400 takes most of that out of the CPU columns, but the bare
// facilitator's c=1 p50 is then higher while its CPU is not (a wait outside this process), which
// flatters the ratio: the default stays 4 so the ratios compare with earlier runs
// (docs/x402-merchant.md, "The CPU outside the merchant path").
const WARMUP = Number(process.env.BENCH_X402_WARMUP ?? 4)
const JIT_WARMUP = process.env.BENCH_X402_JIT_WARMUP === '1'
const STORE = process.env.BENCH_X402_STORE === 'memory' ? 'memory' : 'database'
const PROFILE = Boolean(process.env.BENCH_CPU_PROFILE)
const PROFILE_OPS = Number(process.env.BENCH_X402_PROFILE_OPS ?? 320)
// The concurrency the profiled runs use (1 or 16; default 16): at 1 the profile shows one settle's
// own work with no other settle's beside it.
const PROFILE_CONCURRENCY = Number(process.env.BENCH_X402_PROFILE_CONCURRENCY ?? 16)
// BENCH_X402_PATH_ONLY=1: only the merchant path alone (no HTTP rounds), BENCH_X402_PATH_REPS times
// at c=1 and once at c16, written to bench/results/x402-merchant-path.json; with BENCH_CPU_PROFILE
// one more c=1 run under the profiler (bench/results/x402-merchant-path-<database>-c1.cpuprofile).
const PATH_ONLY = process.env.BENCH_X402_PATH_ONLY === '1'
const PATH_REPS = Number(process.env.BENCH_X402_PATH_REPS ?? 3)
const dispatcher = new Agent({ connections: 32, keepAliveTimeout: 30_000 })

async function main() {
  const loadAtStart = loadavg().map(round)
  const payers = Array.from({ length: 16 }, () => privateKeyToAccount(generatePrivateKey()))
  // Each database gets its own new chain: a settle's wait on anvil grows with the chain's length, so
  // on one chain the second database's rounds ran on a chain longer by the first one's whole run.
  const startChain = async () => {
    const started = await startDevnet({
      solana: false,
      evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
    })
    await Promise.all(
      payers.map((a) =>
        started.fund({ network: BASE, address: a.address, asset: 'USDC', amount: 10n ** 12n }),
      ),
    )
    return started
  }
  const results: Record<string, unknown> = {}
  let devnet: Awaited<ReturnType<typeof startChain>> | undefined
  try {
    const databases = [
      { name: 'pglite', url: undefined },
      ...(process.env.BENCH_DATABASE_URL ? [{ name: 'postgres', url: process.env.BENCH_DATABASE_URL }] : []),
    ]
    for (const database of databases) {
      await devnet?.stop()
      devnet = await startChain()
      const count = { statements: 0, credits: 0, creditTexts: [] as string[] }
      const onQuery = (text: string) => {
        if (text.includes('pg_stat_activity')) {
          return // the lock sampler's own reads
        }
        count.statements += 1
        // Alone or in a batch, with or without the facilitator's outcome write before it.
        if (/\binsert into "?x402_transactions"?\s/.test(text)) {
          count.credits += 1
          count.creditTexts.push(text)
        }
      }
      // The pool's connections carry this run's application name, so the lock sampler counts them
      // only (other processes may use the same database).
      const opened = database.url
        ? await openBenchDatabase('postgres', {
            postgresUrl: withApplicationName(database.url),
            poolSize: 20,
            onQuery,
          })
        : await openDatabase({ onQuery })
      // The facilitator behind all servers, on the settlement store BENCH_X402_STORE names: `database`
      // (the default: a durable store in the service's database, as the sandbox's in-process
      // facilitator and a deployed facilitator have, so both sides pay the facilitator's own writes)
      // or `memory` (the facilitator writes nothing durable, so the merchant path's one statement is
      // all the durable work in the run).
      const schema = database.url
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(opened.db)).rows[0]
            ?.schema
        : undefined
      const { facilitator, close } = await createDevnetFacilitator(devnet, {
        store:
          STORE === 'database'
            ? await createPostgresSettlementStore({ db: opened.db, ...(schema ? { schema } : {}) })
            : createMemorySettlementStore(),
      })
      const bare = await listen(createFacilitatorApp(facilitator).fetch)
      const {
        deps,
        key,
        requirements,
        sides,
        close: closeServices,
      } = await startMerchantServers({
        db: opened.db,
        networks: devnet.networks,
        facilitator,
        bareUrl: bare.url,
        listen,
      })
      // Warm-up, not measured: the merchant's ledger accounts are created by its first credit, and the
      // JIT compiles each server's hot paths. BENCH_X402_JIT_WARMUP=1 first runs the merchant path
      // alone (stub facilitator, no chain, so later settles do not wait on a longer chain), to see
      // whether its code still compiling shows in the measured c=1 rounds (docs/x402-merchant.md,
      // "Quiet machine, this session's code": it did not).
      if (!PATH_ONLY && JIT_WARMUP) {
        results[`${database.name}.merchant-path-warmup`] = await measureMerchantPath(
          deps,
          key,
          requirements,
          payers,
        )
      }
      for (const side of PATH_ONLY ? [] : sides) {
        const warm = await signEip3009Bodies(payers, requirements, WARMUP)
        await runClosedLoop(warm, 1, (body) => settle(side.url, side.headers, body).then(() => undefined))
      }
      for (const concurrency of PATH_ONLY ? [] : [1, 16]) {
        const perRound = Math.ceil((OPS[concurrency] ?? 16) / ROUNDS)
        const totals = new Map(
          sides.map((side) => [
            side.name,
            {
              latenciesMs: [] as number[],
              seconds: 0,
              cpuMs: 0,
              failures: 0,
              statements: 0,
              credits: 0,
              creditTexts: new Set<string>(),
              mainThreadMs: 0,
              lockSamples: [] as { busy: number; waiting: number }[],
            },
          ]),
        )
        for (let round = 0; round < ROUNDS; round++) {
          for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
            const total = totals.get(side.name)
            if (!total) {
              continue
            }
            const bodies = await signEip3009Bodies(payers, requirements, perRound)
            const sampler =
              database.url && concurrency === 16 ? sampleLockWaits(opened.db, total.lockSamples) : undefined
            const counted = { ...count, creditTexts: count.creditTexts.length }
            const cpu = process.cpuUsage()
            const mainThread = mainThreadCpuMs()
            const run = await runClosedLoop(bodies, concurrency, async (body) => {
              if (!(await settle(side.url, side.headers, body))) {
                total.failures += 1
              }
            })
            const used = process.cpuUsage(cpu)
            total.mainThreadMs += mainThreadCpuMs() - mainThread
            await sampler?.stop()
            total.statements += count.statements - counted.statements
            total.credits += count.credits - counted.credits
            for (const text of count.creditTexts.splice(counted.creditTexts)) {
              total.creditTexts.add(text)
            }
            total.cpuMs += (used.user + used.system) / 1000
            total.seconds += run.seconds
            total.latenciesMs.push(...run.latenciesMs)
          }
        }
        for (const side of sides) {
          const total = totals.get(side.name)
          if (!total) {
            continue
          }
          const ops = total.latenciesMs.length
          const label = `${database.name}.${side.name}.c${concurrency}`
          results[label] = {
            ops,
            failures: total.failures,
            opsPerSecond: round(ops / total.seconds),
            cpuMsPerOp: round(total.cpuMs / ops),
            // Of the process's CPU, the main thread's (JavaScript, PGlite's WebAssembly); the rest is
            // V8's and libuv's helper threads (garbage collection, compilation). Linux only.
            ...(total.mainThreadMs > 0 ? { mainThreadCpuMsPerOp: round(total.mainThreadMs / ops) } : {}),
            statementsPerOp: round(total.statements / ops),
            creditStatementsPerOp: round(total.credits / ops),
            // How many different texts those statements had: each is parsed, planned and prepared
            // once per connection (a batch whose text grew with its size made one per size).
            distinctCreditStatements: total.creditTexts.size,
            ...(total.lockSamples.length > 0
              ? {
                  connections: {
                    busy: round(mean(total.lockSamples.map((x) => x.busy))),
                    waitingForLock: round(mean(total.lockSamples.map((x) => x.waiting))),
                  },
                }
              : {}),
            latencyMs: summarize(total.latenciesMs),
          }
          console.log(label.padEnd(32), JSON.stringify(results[label]))
        }
        if (PROFILE && concurrency === PROFILE_CONCURRENCY) {
          for (const side of sides) {
            const label = `${database.name}.${side.name}.c${concurrency}`
            results[`${label}.profiled`] = await profileSide(
              join(here, 'results', `x402-merchant-${database.name}-${side.name}-c${concurrency}.cpuprofile`),
              await signEip3009Bodies(payers, requirements, PROFILE_OPS),
              (body) => settle(side.url, side.headers, body).then(() => undefined),
              concurrency,
            )
            console.log(`${label}.profiled`.padEnd(32), JSON.stringify(results[`${label}.profiled`]))
          }
        }
      }
      results[`${database.name}.merchant-path`] = await measureMerchantPath(deps, key, requirements, payers)
      console.log(
        `${database.name}.merchant-path`.padEnd(32),
        JSON.stringify(results[`${database.name}.merchant-path`]),
      )
      for (let rep = 1; PATH_ONLY && rep < PATH_REPS; rep++) {
        const label = `${database.name}.merchant-path.${rep + 1}`
        results[label] = await measureMerchantPath(deps, key, requirements, payers)
        console.log(label.padEnd(32), JSON.stringify(results[label]))
      }
      if (PATH_ONLY && PROFILE) {
        const label = `${database.name}.merchant-path.profiled`
        const path = join(here, 'results', `x402-merchant-path-${database.name}-c1.cpuprofile`)
        results[label] = await measureMerchantPath(deps, key, requirements, payers, 1, path)
        console.log(label.padEnd(32), JSON.stringify(results[label]))
      }
      // The same at 16 concurrent settles: the stub answers at once, so the credits meet (coalesced
      // credits, docs/x402-merchant.md), without the chain's or HTTP's CPU around them.
      results[`${database.name}.merchant-path-c16`] = await measureMerchantPath(
        deps,
        key,
        requirements,
        payers,
        16,
      )
      console.log(
        `${database.name}.merchant-path-c16`.padEnd(32),
        JSON.stringify(results[`${database.name}.merchant-path-c16`]),
      )
      await closeServices()
      await bare.close()
      close()
      await opened.close()
    }
  } finally {
    await devnet?.stop()
    await dispatcher.close()
  }
  type Result = { cpuMsPerOp: number; latencyMs: { p50: number } }
  const ratio = (
    db: string,
    c: number,
    of: (r: Result) => number = (r) => r.latencyMs.p50,
    side = 'merchant-api',
  ) => {
    const get = (n: string) => {
      const result = results[`${db}.${n}.c${c}`] as Result | undefined
      return result ? of(result) : 0
    }
    return round(get(side) / Math.max(0.01, get('facilitator')))
  }
  const body = {
    benchmark: 'x402-merchant',
    date: new Date().toISOString(),
    node: process.version,
    setup: `one Base Sepolia anvil; one in-process facilitator (${STORE} settlement store) behind all three servers; undici keep-alive client; fresh payments from 16 payers`,
    settlementStore: STORE,
    summary: {
      p50Ratio: {
        pgliteC1: ratio('pglite', 1),
        pgliteC16: ratio('pglite', 16),
        postgresC1: ratio('postgres', 1),
        postgresC16: ratio('postgres', 16),
      },
      // The merchant API without the onSettled hook (its statement after settle), same run.
      p50RatioNoHook: {
        pgliteC1: ratio('pglite', 1, undefined, 'merchant-api-no-hook'),
        pgliteC16: ratio('pglite', 16, undefined, 'merchant-api-no-hook'),
        postgresC1: ratio('postgres', 1, undefined, 'merchant-api-no-hook'),
        postgresC16: ratio('postgres', 16, undefined, 'merchant-api-no-hook'),
      },
      cpuPerOpRatio: {
        pgliteC1: ratio('pglite', 1, (r) => r.cpuMsPerOp),
        pgliteC16: ratio('pglite', 16, (r) => r.cpuMsPerOp),
        postgresC1: ratio('postgres', 1, (r) => r.cpuMsPerOp),
        postgresC16: ratio('postgres', 16, (r) => r.cpuMsPerOp),
      },
      merchantPath: { pglite: results['pglite.merchant-path'], postgres: results['postgres.merchant-path'] },
      loadAverage: { start: loadAtStart, end: loadavg().map(round) },
    },
    results,
  }
  const file = PATH_ONLY
    ? 'x402-merchant-path.json'
    : STORE === 'database'
      ? 'x402-merchant.json'
      : `x402-merchant-${STORE}-store.json`
  await writeFile(join(here, 'results', file), `${JSON.stringify(body, null, 2)}\n`)
  console.log(JSON.stringify(body.summary))
}

/**
 * Runs `bodies` through `op` at `concurrency` under the V8 CPU profiler of this process (the facilitator, the
 * service, PGlite and the client all run here) and writes the profile to `path`.
 */
async function profileSide(
  path: string,
  bodies: string[],
  op: (body: string) => Promise<void>,
  concurrency: number,
) {
  const session = new Session()
  session.connect()
  try {
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 200 })
    const cpu = process.cpuUsage()
    await session.post('Profiler.start')
    const run = await runClosedLoop(bodies, concurrency, op)
    const { profile } = await session.post('Profiler.stop')
    const used = process.cpuUsage(cpu)
    await writeFile(path, JSON.stringify(profile))
    return {
      ops: bodies.length,
      opsPerSecond: round(bodies.length / run.seconds),
      cpuMsPerOp: round((used.user + used.system) / 1000 / bodies.length),
      latencyMs: summarize(run.latenciesMs),
      profile: path.slice(here.length + 1),
    }
  } finally {
    await session.post('Profiler.disable').catch(() => undefined)
    session.disconnect()
  }
}

const applicationName = `tollgate-x402-bench-${process.pid}`
function withApplicationName(url: string) {
  const parsed = new URL(url)
  parsed.searchParams.set('application_name', applicationName)
  return parsed.toString()
}

/** CPU time of this process's main thread so far, in ms (Linux's schedstat; 0 where there is none). */
function mainThreadCpuMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return 0
  }
}

const mean = (values: number[]) => values.reduce((sum, x) => sum + x, 0) / Math.max(1, values.length)

// Samples pg_stat_activity every 50 ms until stopped: the service's other connections in a
// statement or transaction, and how many of them wait for a lock (a row lock another holds).
function sampleLockWaits(
  db: Awaited<ReturnType<typeof openDatabase>>['db'],
  into: { busy: number; waiting: number }[],
) {
  let running = true
  const loop = (async () => {
    while (running) {
      const { rows } = await sql<{ state: string | null; wait: string | null }>`
        select state, wait_event_type as wait from pg_stat_activity
        where application_name = ${applicationName} and pid <> pg_backend_pid()`.execute(db)
      into.push({
        busy: rows.filter((r) => r.state !== null && r.state !== 'idle').length,
        waiting: rows.filter((r) => r.wait === 'Lock').length,
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
    },
  }
}

/** One settle over HTTP; whether it answered a success. */
async function settle(url: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    dispatcher,
  } as RequestInit)
  const text = await res.text()
  return res.status < 300 && text.includes('"success":true')
}

/**
 * The merchant API's own cost per settle, without the chain or HTTP: POST /x402/settle through
 * `app.fetch` in process, one at a time (or `concurrency` at once), with a stub facilitator that answers success at once. Reports
 * process CPU time, time inside database calls (Kysely's, so BEGIN and COMMIT are not counted as
 * separate statements) and statements per settle: measures a loaded machine changes little.
 */
async function measureMerchantPath(
  deps: Parameters<typeof createApp>[0],
  key: string,
  requirements: PaymentRequirements,
  payers: PrivateKeyAccount[],
  concurrency = 1,
  profilePath?: string,
) {
  const started = new Map<unknown, number>()
  const db = { ms: 0, statements: 0 }
  const timed = deps.db.withPlugin({
    transformQuery(args) {
      started.set(args.queryId, performance.now())
      return args.node
    },
    async transformResult(args) {
      const t0 = started.get(args.queryId)
      if (t0 !== undefined) {
        db.ms += performance.now() - t0
        db.statements += 1
        started.delete(args.queryId)
      }
      return args.result
    },
  })
  const app = createStubFacilitatorApp(
    { ...deps, db: timed },
    {
      payer: payers[0]?.address ?? '',
      getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
    },
  )
  const ops = Number(process.env.BENCH_X402_PATH_OPS ?? 300)
  const bodies = await signEip3009Bodies(payers, requirements, ops + 10)
  const post = async (body: string) => {
    const res = await app.fetch(
      new Request('http://bench/api/v1/x402/settle', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body,
      }),
    )
    if (res.status !== 201) {
      throw new Error(`settle answered ${res.status}: ${await res.text()}`)
    }
  }
  for (const body of bodies.slice(0, 10)) {
    await post(body)
  }
  db.ms = 0
  db.statements = 0
  const session = profilePath ? new Session() : undefined
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 100 })
    await session.post('Profiler.start')
  }
  const cpu = process.cpuUsage()
  const mainThread = mainThreadCpuMs()
  const run = await runClosedLoop(bodies.slice(10), concurrency, post)
  const used = process.cpuUsage(cpu)
  const mainThreadMs = mainThreadCpuMs() - mainThread
  if (session && profilePath) {
    const { profile } = await session.post('Profiler.stop')
    await session.post('Profiler.disable')
    session.disconnect()
    await writeFile(profilePath, JSON.stringify(profile))
  }
  return {
    ops,
    cpuMsPerOp: round((used.user + used.system) / 1000 / ops),
    ...(mainThreadMs > 0 ? { mainThreadCpuMsPerOp: round(mainThreadMs / ops) } : {}),
    dbMsPerOp: round(db.ms / ops),
    statementsPerOp: round(db.statements / ops),
    latencyMs: summarize(run.latenciesMs),
  }
}

async function listen(fetchHandler: (request: Request) => Response | Promise<Response>) {
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
    const server = serve({ fetch: fetchHandler, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      })
    })
  })
}

await main()
