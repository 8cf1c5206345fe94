// Where one settle's wall time goes, at concurrency 1 (where no queueing hides it): the bare
// facilitator's POST /settle and the merchant API's POST /x402/settle, traced phase by phase with
// timestamps (client send, handler in, facilitator.settle start and end, the service's SQL, handler
// out, client done; the SQL runs inside facilitator.settle when its onSettled hook ran it, after it
// otherwise). A third side, the merchant API over a facilitator client that ignores the hook, is
// the flow before the hook. The sides take turns request by request, on PGlite and on PostgreSQL
// (BENCH_DATABASE_URL). Each database runs twice: the facilitator behind all sides on a memory
// settlement store (BENCH_X402_STORE=memory in bench/x402-merchant.ts) and on a durable one on the
// service's own database handle (what the sandbox uses, so the merchant's credit takes the store's
// outcome write into its statement; a standalone facilitator has its own); on PostgreSQL a third run,
// a diagnostic, has commits that do not wait for the WAL flush. Also process CPU per settle.
// Writes bench/results/x402-merchant-trace.json.
import { writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import {
  createFacilitatorApp,
  createMemorySettlementStore,
  createPostgresSettlementStore,
  type Facilitator,
} from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import { openDatabase } from '@tollgate/service'
import { CompiledQuery, type Kysely, type PluginTransformQueryArgs, sql } from 'kysely'
import { Agent } from 'undici'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { openBenchDatabase } from './lib/bench-database.js'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { percentile, round } from './lib/stats.js'
import { startMerchantServers } from './lib/x402-merchant-servers.js'

const here = dirname(fileURLToPath(import.meta.url))
const BASE = 'eip155:84532'
const POOL_SIZE = 20
const OPS = Number(process.env.BENCH_TRACE_OPS ?? 100)
const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 30_000 })

type Marks = {
  send: number
  in?: number
  facStart?: number
  facEnd?: number
  sqlStart?: number
  sqlEnd?: number
  /** The service's statement started inside facilitator.settle (its onSettled hook). */
  sqlInSettle?: boolean
  statements: number
  out?: number
  done?: number
}
let current: Marks | undefined

async function main() {
  const loadAtStart = loadavg().map(round)
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  const payers = Array.from({ length: 16 }, () => privateKeyToAccount(generatePrivateKey()))
  await Promise.all(
    payers.map((a) => devnet.fund({ network: BASE, address: a.address, asset: 'USDC', amount: 10n ** 12n })),
  )
  const results: Record<string, unknown> = {}
  try {
    const databases = [
      { name: 'pglite', url: undefined },
      ...(process.env.BENCH_DATABASE_URL ? [{ name: 'postgres', url: process.env.BENCH_DATABASE_URL }] : []),
    ]
    for (const database of databases) {
      for (const store of ['memory', 'database'] as const) {
        await traceOne(devnet, payers, { database: database.name, url: database.url, store }, results)
      }
      if (database.url) {
        // Diagnostic only, never a setting to run with: the same run with every session of the
        // service's pool on synchronous_commit=off, so a commit does not wait for its WAL flush. The
        // difference is what the durable commit of the settle's one statement costs on this machine.
        await traceOne(
          devnet,
          payers,
          {
            database: `${database.name}-async-commit`,
            url: database.url,
            store: 'memory',
            asyncCommit: true,
          },
          results,
        )
      }
    }
  } finally {
    await devnet.stop()
    await dispatcher.close()
  }
  const body = {
    benchmark: 'x402-merchant-trace',
    date: new Date().toISOString(),
    node: process.version,
    load: { start: loadAtStart, end: loadavg().map(round) },
    results,
  }
  await writeFile(join(here, 'results', 'x402-merchant-trace.json'), `${JSON.stringify(body, null, 2)}\n`)
  console.log(JSON.stringify(body.load))
}

async function traceOne(
  devnet: Awaited<ReturnType<typeof startDevnet>>,
  payers: PrivateKeyAccount[],
  run: { database: string; url: string | undefined; store: 'memory' | 'database'; asyncCommit?: boolean },
  results: Record<string, unknown>,
) {
  const opened = run.url
    ? await openBenchDatabase('postgres', { postgresUrl: run.url, poolSize: POOL_SIZE })
    : await openDatabase({})
  if (run.asyncCommit) {
    // Holds all 20 pool connections at once, so each one gets the setting.
    let arrived = 0
    let release = () => {}
    const all = new Promise<void>((resolve) => {
      release = resolve
    })
    await Promise.all(
      Array.from({ length: POOL_SIZE }, () =>
        opened.db.connection().execute(async (connection) => {
          await sql`set synchronous_commit = off`.execute(connection)
          arrived += 1
          if (arrived === POOL_SIZE) {
            release()
          }
          await all
        }),
      ),
    )
  }
  const schema = run.url
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(opened.db)).rows[0]?.schema
    : undefined
  // The service's handle, timing the merchant's statements. The durable store is on the same handle,
  // as in the sandbox, so the merchant's credit can take the store's outcome write into its statement
  // (SettleOptions.database); the store's own statements pass the plugin untimed.
  let settleStatement: PluginTransformQueryArgs | undefined
  const merchantQueries = new WeakSet<object>()
  const timed = opened.db.withPlugin({
    transformQuery(args) {
      const marks = current
      // Only the merchant's statements from facilitator.settle on, its onSettled hook's included (an
      // API-key refresh before it is counted, not timed): those that write x402_transactions.
      if (marks && marks.facStart !== undefined && writesX402Transactions(args.node)) {
        merchantQueries.add(args.queryId)
        if (marks.sqlStart === undefined) {
          marks.sqlStart = performance.now()
          marks.sqlInSettle = marks.facEnd === undefined
        }
        // Kept to EXPLAIN afterwards. A statement's embedded builders pass here before it does, so
        // the last one seen is the whole statement.
        settleStatement = args
      }
      return args.node
    },
    async transformResult(args) {
      const marks = current
      if (marks && (marks.facStart === undefined || merchantQueries.has(args.queryId))) {
        if (marks.sqlStart !== undefined) {
          marks.sqlEnd = performance.now()
        }
        marks.statements += 1
      }
      return args.result
    },
  })
  const { facilitator: inner, close } = await createDevnetFacilitator(devnet, {
    store:
      run.store === 'memory'
        ? createMemorySettlementStore()
        : await createPostgresSettlementStore({ db: timed, ...(schema ? { schema } : {}) }),
  })
  const facilitator = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'settle') {
        return value
      }
      return async (...args: Parameters<Facilitator['settle']>) => {
        const marks = current
        if (marks) {
          marks.facStart = performance.now()
        }
        try {
          return await target.settle(...args)
        } finally {
          if (marks) {
            marks.facEnd = performance.now()
          }
        }
      }
    },
  })
  const bare = await listen(createFacilitatorApp(facilitator).fetch)
  try {
    const {
      requirements,
      sides,
      close: closeServices,
    } = await startMerchantServers({
      db: timed,
      networks: devnet.networks,
      facilitator,
      bareUrl: bare.url,
      listen,
    })
    const warm = await signEip3009Bodies(payers, requirements, 20)
    for (const [i, body] of warm.entries()) {
      const side = sides[i % sides.length] as (typeof sides)[number]
      await settle(side.url, side.headers, body)
    }
    const bodies = await signEip3009Bodies(payers, requirements, OPS * sides.length)
    const traces = new Map<string, Marks[]>(sides.map((s) => [s.name, []]))
    const cpu = new Map<string, number>(sides.map((s) => [s.name, 0]))
    for (const [i, body] of bodies.entries()) {
      // Each block of three runs every side once, the order rotating block by block.
      const side = sides[(i + Math.floor(i / sides.length)) % sides.length] as (typeof sides)[number]
      const marks: Marks = { send: performance.now(), statements: 0 }
      current = marks
      const c0 = process.cpuUsage()
      const ok = await settle(side.url, side.headers, body)
      const used = process.cpuUsage(c0)
      marks.done = performance.now()
      current = undefined
      if (!ok) {
        throw new Error(`${side.name} settle failed`)
      }
      cpu.set(side.name, (cpu.get(side.name) ?? 0) + (used.user + used.system) / 1000)
      traces.get(side.name)?.push(marks)
    }
    for (const side of sides) {
      const list = traces.get(side.name) ?? []
      const phase = (f: (m: Marks) => number | undefined) => {
        const values = list.map(f).filter((v): v is number => v !== undefined && Number.isFinite(v))
        values.sort((a, b) => a - b)
        return {
          p50: round(percentile(values, 50)),
          mean: round(values.reduce((s, v) => s + v, 0) / Math.max(1, values.length)),
        }
      }
      const sqlOr = (m: Marks, a: number | undefined) => (m.sqlEnd !== undefined ? a : undefined)
      const afterOr = (m: Marks, a: number | undefined) =>
        m.sqlEnd !== undefined && !m.sqlInSettle ? a : undefined
      const label = `${run.database}.${run.store}-store.${side.name}`
      results[label] = {
        ops: list.length,
        cpuMsPerOp: round((cpu.get(side.name) ?? 0) / list.length),
        statementsPerOp: round(list.reduce((s, m) => s + m.statements, 0) / list.length),
        total: phase((m) => (m.done ?? 0) - m.send),
        clientToHandler: phase((m) => (m.in ?? 0) - m.send),
        handlerToFacilitator: phase((m) => (m.facStart ?? 0) - (m.in ?? 0)),
        facilitatorSettle: phase((m) => (m.facEnd ?? 0) - (m.facStart ?? 0)),
        // Settles whose statement ran inside facilitator.settle (the onSettled hook), of all.
        sqlInSettle: list.filter((m) => m.sqlInSettle).length,
        facilitatorToSql: phase((m) => afterOr(m, (m.sqlStart ?? 0) - (m.facEnd ?? 0))),
        sql: phase((m) => sqlOr(m, (m.sqlEnd ?? 0) - (m.sqlStart ?? 0))),
        afterWorkToHandlerOut: phase((m) => (m.out ?? 0) - Math.max(m.sqlEnd ?? 0, m.facEnd ?? 0)),
        handlerOutToClient: phase((m) => (m.done ?? 0) - (m.out ?? 0)),
      }
      console.log(label.padEnd(24), JSON.stringify(results[label]))
    }
    if (settleStatement) {
      results[`${run.database}.${run.store}-store.settle-statement`] = await planStatement(
        opened.db as unknown as Kysely<unknown>,
        opened.db.getExecutor().compileQuery(settleStatement.node, settleStatement.queryId),
      )
    }
    await closeServices()
  } finally {
    await bare.close()
    close()
    await opened.close()
  }
}

/**
 * The database's own planning time of `statement` (EXPLAIN with SUMMARY, which plans it without
 * running it), p50 of 50 runs: the part of the statement's round trip a cached plan would save.
 */
async function planStatement(db: Kysely<unknown>, statement: CompiledQuery) {
  const planningMs: number[] = []
  for (let i = 0; i < 50; i++) {
    const explained = await db.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw(`explain (summary, format json) ${statement.sql}`, [...statement.parameters]),
    )
    const cell = Object.values(explained.rows[0] ?? {})[0]
    const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as { 'Planning Time'?: number }[]
    planningMs.push(plan[0]?.['Planning Time'] ?? Number.NaN)
  }
  planningMs.sort((a, b) => a - b)
  return { planningMsP50: round(percentile(planningMs, 50)), bytesOfSql: statement.sql.length }
}

/** Whether a statement's node names the x402_transactions table (the merchant's, not the store's). */
function writesX402Transactions(node: unknown): boolean {
  const text = JSON.stringify(node, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  )
  return text.includes('"x402_transactions"')
}

async function settle(url: string, headers: Record<string, string>, body: string): Promise<boolean> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    dispatcher,
  } as RequestInit)
  const text = await res.text()
  const ok = res.status < 300 && text.includes('"success":true')
  if (!ok) {
    console.error(`settle at ${url} answered ${res.status}: ${text.slice(0, 500)}`)
  }
  return ok
}

async function listen(fetchHandler: (request: Request) => Response | Promise<Response>) {
  const traced = async (request: Request) => {
    const marks = current
    if (marks) {
      marks.in = performance.now()
    }
    const response = await fetchHandler(request)
    if (marks) {
      marks.out = performance.now()
    }
    return response
  }
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
    const server = serve({ fetch: traced, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      })
    })
  })
}

await main()
