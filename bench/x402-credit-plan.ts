// The x402 credit statement on PGlite (issue #15): what one credit costs once the merchant path is
// warm, and whether its cached plan still fits the data. POST /x402/settle runs through app.fetch
// behind a stub facilitator that settles at once, on PGlite in a temporary data directory, so each
// settle sends one statement, the credit (ledger/posting-ctes.ts). Then, on the same session:
// - how often Postgres planned that prepared statement anew (custom plans) and how often it ran its
//   cached generic plan (`pg_prepared_statements`);
// - the statement alone, run again with fresh ids in a loop (no HTTP, no Kysely building), beside
//   the smallest statements (a `select` of one parameter, a one-row insert): what any statement
//   costs, and what this one adds;
// - the same loop after BENCH_CREDIT_FILL more ledger accounts in the environment (default 5000, as
//   a deployment's merchants accumulate them): right after the fill, then after 1000 more credits
//   (the last BENCH_CREDIT_LOOP of them), then after `discard plans`. PGlite runs no autovacuum, so
//   nothing but the dialect's `replanEvery` drops a plan made while the tables were small.
// Two databases, one after the other: the dialect with `replanEvery: 0` (plans kept for the life of
// the session, as before it had the option) and with its default (BENCH_CREDIT_DEFAULT_FIRST=1 runs
// the default first). Writes
// bench/results/x402-credit-plan.json.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, types } from '@electric-sql/pglite'
import type { FacilitatorClient } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import { createMemorySettlementStore, createPgliteDialect } from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import {
  createApiKey,
  createApp,
  createDefaultSettings,
  createIdGenerator,
  createLogger,
  createMerchant,
  createRails,
  createRateLimiter,
  type Database,
  migrateToLatest,
  systemClock,
} from '@tollgate/service'
import { CompiledQuery, Kysely, sql } from 'kysely'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { percentile, round } from './lib/stats.js'

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
    const base = {
      db,
      clock: systemClock,
      ids: createIdGenerator(),
      logger: createLogger({ level: 'silent' }),
    }
    const deps = { ...base, rails: createRails(base, { networks }), settings: createDefaultSettings() }
    const merchant = await createMerchant(deps, { name: 'Bench merchant' })
    const { key } = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
    const payer = privateKeyToAccount(generatePrivateKey())
    const stub: FacilitatorClient = {
      verify: async () => ({ isValid: true }),
      settle: async (request) => ({
        success: true,
        transaction: `0x${randomBytes(32).toString('hex')}`,
        network: request.paymentRequirements.network,
        payer: payer.address,
      }),
      getSupported: () => facilitator.getSupported(),
    }
    const app = createApp(deps, {
      facilitator: stub,
      rateLimiter: createRateLimiter({ limit: 1_000_000, windowMs: 60_000 }),
    })
    const post = async (path: string, body: string) => {
      const res = await app.fetch(
        new Request(`http://bench/api/v1/x402/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body,
        }),
      )
      if (res.status !== 201) {
        throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
      }
      return res
    }
    const requirements = (
      (await (
        await post(
          'requirements',
          JSON.stringify({ chain: 'base', asset: 'USDC', amount: '0.01', x402Version: 2 }),
        )
      ).json()) as { data: { accepts: Parameters<typeof signEip3009Bodies>[1][] } }
    ).data.accepts[0]
    if (!requirements) {
      throw new Error('no requirements')
    }
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
