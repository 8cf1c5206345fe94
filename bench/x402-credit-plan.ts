import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, types } from '@electric-sql/pglite'
import type { FacilitatorClient } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import { createMemorySettlementStore, createPgliteDialect } from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import { type createRails, type Database, migrateToLatest } from '@tollgate/service'
import { CompiledQuery, Kysely, sql } from 'kysely'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { percentile, round } from './lib/stats.js'
import { startStubX402Merchant } from './lib/stub-x402-merchant.js'

const here = dirname(fileURLToPath(import.meta.url))
const BASE = 'eip155:84532'
const SETTLES = Number(process.env.BENCH_CREDIT_SETTLES ?? 300)
const LOOP = Number(process.env.BENCH_CREDIT_LOOP ?? 300)
const FILL = Number(process.env.BENCH_CREDIT_FILL ?? 5000)
const CREDIT = /^with x402_row as/

async function main() {
  const loadAtStart = loadavg().map(round)
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  // Only for the requirements the settles pay (getSupported); the settles use the stub below.
  const real = await createDevnetFacilitator(devnet, { store: createMemorySettlementStore() })
  try {
    const results: Record<string, unknown> = {}
    const sides = [
      ['replanEvery0', 0],
      ['replanEveryDefault', undefined],
    ] as const
    // The second database runs in a warmer process: BENCH_CREDIT_DEFAULT_FIRST=1 swaps the order.
    for (const [name, replanEvery] of process.env.BENCH_CREDIT_DEFAULT_FIRST === '1'
      ? [...sides].reverse()
      : sides) {
      results[name] = await measure(name, replanEvery, devnet.networks, real.facilitator)
    }
    const body = {
      benchmark: 'x402-credit-plan',
      date: new Date().toISOString(),
      node: process.version,
      setup:
        'POST /x402/settle through app.fetch, stub facilitator, PGlite in a data directory; then the credit statement alone with fresh ids',
      filledAccounts: FILL,
      results,
      loadAverage: { start: loadAtStart, end: loadavg().map(round) },
    }
    await writeFile(join(here, 'results', 'x402-credit-plan.json'), `${JSON.stringify(body, null, 2)}\n`)
    console.log(JSON.stringify(body.loadAverage))
  } finally {
    real.close()
    await devnet.stop()
  }
}

async function measure(
  name: string,
  replanEvery: number | undefined,
  networks: NonNullable<NonNullable<Parameters<typeof createRails>[1]>['networks']>,
  facilitator: FacilitatorClient,
) {
  const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-'))
  const pglite = new PGlite({ dataDir, parsers: { [types.INT8]: (value: string) => value } })
  const plain = new Kysely<Database>({
    dialect: createPgliteDialect(pglite, replanEvery === undefined ? {} : { replanEvery }),
  })
  try {
    await migrateToLatest(plain as Kysely<unknown>)
    let credit: CompiledQuery | undefined
    const creditMs: number[] = []
    const started = new Map<unknown, number>()
    const db = plain.withPlugin({
      transformQuery(args) {
        const compiled = plain.getExecutor().compileQuery(args.node, args.queryId)
        if (CREDIT.test(compiled.sql)) {
          credit = compiled
          started.set(args.queryId, performance.now())
        }
        return args.node
      },
      async transformResult(args) {
        const t0 = started.get(args.queryId)
        if (t0 !== undefined) {
          creditMs.push(performance.now() - t0)
          started.delete(args.queryId)
        }
        return args.result
      },
    })
    const payer = privateKeyToAccount(generatePrivateKey())
    const merchant = await startStubX402Merchant({ db, networks, facilitator, payer: payer.address })
    const post = async (path: 'settle', body: string) => {
      const res = await merchant.post(path, body)
      if (res.status !== 201) {
        throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
      }
      return res
    }
    const requirements = await merchant.requirements()
    const bodies = await signEip3009Bodies([payer], requirements, SETTLES + 20)
    for (const body of bodies.slice(0, 20)) {
      await post('settle', body)
    }
    creditMs.length = 0
    const cpu = process.cpuUsage()
    for (const body of bodies.slice(20)) {
      await post('settle', body)
    }
    const used = process.cpuUsage(cpu)
    const statement = credit
    if (!statement) {
      throw new Error('no credit statement seen')
    }
    const settles = {
      ops: SETTLES,
      cpuMsPerSettle: round((used.user + used.system) / 1000 / SETTLES),
      creditStatementMs: {
        p50: round(percentile(sorted(creditMs), 50)),
        p90: round(percentile(sorted(creditMs), 90)),
      },
    }
    const plans = await planCounts(plain as Kysely<unknown>)

    // The credit statement again, each time with fresh ids (its own x402 row, ledger transaction,
    // transfers and balance transaction), so it always posts.
    let run = 0
    const fresh = () => {
      const suffix = `b${(run++).toString(36)}`
      return statement.parameters.map((p) =>
        typeof p === 'string' && /^(x4t|ltx|tr|btx)_|^0x[0-9a-f]{64}$|^x402:/.test(p) ? `${p}${suffix}` : p,
      )
    }
    const credits = (warmUp = 20) => loop(plain, () => CompiledQuery.raw(statement.sql, fresh()), warmUp)
    await sql`create temporary table bench_rows (id text primary key, note text, amount numeric)`.execute(
      plain,
    )
    let row = 0
    const loops: Record<string, unknown> = {
      selectOneParameter: await loop(plain, () => CompiledQuery.raw('select $1::int as x', [row++])),
      insertOneRow: await loop(plain, () =>
        CompiledQuery.raw('insert into bench_rows (id, note, amount) values ($1, $2, $3)', [
          `r${row++}`,
          'x',
          5,
        ]),
      ),
      credit: await credits(),
    }
    // Diagnostics of the statement's own cost: without its foreign-key checks (the session's
    // replication role skips the RI triggers; nothing the service runs does this), and then as
    // before, so a drift between the two loops shows.
    await sql`set session_replication_role = replica`.execute(plain)
    loops.creditWithoutForeignKeyChecks = await credits()
    await sql`set session_replication_role = origin`.execute(plain)
    loops.creditAgain = await credits()
    await sql`insert into ledger_accounts (id, environment, code, currency, created_at)
      select 'la_fill_' || g, 'test', 'bench:fill:' || g, 'USDC', now() from generate_series(1, ${FILL}::int) g`.execute(
      plain,
    )
    loops.creditAfterFill = await credits(0)
    loops.creditAfterFillAnd1000More = await credits(1000)
    await sql`discard plans`.execute(plain)
    loops.creditAfterFillAndDiscard = await credits()
    const result = { settles, creditPlans: plans, loops }
    console.log(name, JSON.stringify(result))
    return result
  } finally {
    await plain.destroy()
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** How often Postgres planned the credit statement for its parameters, and how often it reused its generic plan. */
async function planCounts(db: Kysely<unknown>) {
  const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`
    select generic_plans::text, custom_plans::text from pg_prepared_statements
    where statement like 'with x402_row as%'`.execute(db)
  return rows.map((r) => ({ genericPlans: Number(r.generic_plans), customPlans: Number(r.custom_plans) }))
}

/** Runs `next()`'s statement LOOP times after `warmUp` runs: wall p50 and process CPU per statement, in ms. */
async function loop(db: Kysely<Database>, next: () => CompiledQuery, warmUp = 20) {
  for (let i = 0; i < warmUp; i++) {
    await db.executeQuery(next())
  }
  const wall: number[] = []
  const cpu = process.cpuUsage()
  for (let i = 0; i < LOOP; i++) {
    const query = next()
    const t0 = performance.now()
    await db.executeQuery(query)
    wall.push(performance.now() - t0)
  }
  const used = process.cpuUsage(cpu)
  return {
    p50Ms: round(percentile(sorted(wall), 50)),
    cpuMsPerStatement: round((used.user + used.system) / 1000 / LOOP),
  }
}

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b)
}

await main()
