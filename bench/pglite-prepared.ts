// The PGlite dialect's prepared statements (issue #15): the merchant API's POST /x402/settle path on
// two in-memory PGlite databases in one process, one with the dialect's named prepared statements
// (the default) and one with `preparedStatements: 0` (every statement parsed, analysed and planned
// again, as PGlite's `query` does). A stub facilitator answers each settle at once, so what is
// measured is the service's own work: the API-key and payTo caches, the x402 row and its ledger
// credit in one statement (ledger/posting-ctes.ts). The two take turns in rounds (A B, B A, …) and
// each reports process CPU time and time inside database calls per settle, which a loaded machine
// moves less than latency. Writes bench/results/pglite-prepared.json.
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, types } from '@electric-sql/pglite'
import type { FacilitatorClient, PaymentRequirements } from '@tollgate/core'
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
import { Kysely } from 'kysely'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { round, summarize } from './lib/stats.js'

const here = dirname(fileURLToPath(import.meta.url))
const BASE = 'eip155:84532'
const ROUNDS = Number(process.env.BENCH_PREPARED_ROUNDS ?? 6)
const PER_ROUND = Number(process.env.BENCH_PREPARED_OPS ?? 50)

async function main() {
  const loadAtStart = loadavg().map(round)
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  // Only for the requirements the settles pay (getSupported); the settles use the stub below.
  const real = await createDevnetFacilitator(devnet, { store: createMemorySettlementStore() })
  const payer = privateKeyToAccount(generatePrivateKey())
  const sides = []
  try {
    for (const [name, preparedStatements] of [
      ['prepared', 100],
      ['unprepared', 0],
    ] as const) {
      sides.push(await startSide(name, preparedStatements, devnet.networks, real.facilitator, payer.address))
    }
    // Each merchant is paid at its own x402 address.
    const requirements = new Map<string, PaymentRequirements>()
    for (const side of sides) {
      const own = await side.requirements()
      if (!own) {
        throw new Error('no requirements')
      }
      requirements.set(side.name, own)
      for (const body of await signEip3009Bodies([payer], own, 20)) {
        await side.settle(body)
      }
    }
    const totals = new Map(
      sides.map((s) => [s.name, { cpuMs: 0, dbMs: 0, statements: 0, latenciesMs: [] as number[] }]),
    )
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const total = totals.get(side.name)
        const own = requirements.get(side.name)
        if (!own) {
          continue
        }
        const bodies = await signEip3009Bodies([payer], own, PER_ROUND)
        side.db.ms = 0
        side.db.statements = 0
        const cpu = process.cpuUsage()
        for (const body of bodies) {
          const t0 = performance.now()
          await side.settle(body)
          total?.latenciesMs.push(performance.now() - t0)
        }
        const used = process.cpuUsage(cpu)
        if (total) {
          total.cpuMs += (used.user + used.system) / 1000
          total.dbMs += side.db.ms
          total.statements += side.db.statements
        }
      }
    }
    const results: Record<string, unknown> = {}
    for (const [name, total] of totals) {
      const ops = total.latenciesMs.length
      results[name] = {
        ops,
        cpuMsPerOp: round(total.cpuMs / ops),
        dbMsPerOp: round(total.dbMs / ops),
        statementsPerOp: round(total.statements / ops),
        latencyMs: summarize(total.latenciesMs),
      }
      console.log(name.padEnd(12), JSON.stringify(results[name]))
    }
    const cpu = (name: string) => (results[name] as { cpuMsPerOp: number }).cpuMsPerOp
    const body = {
      benchmark: 'pglite-prepared',
      date: new Date().toISOString(),
      node: process.version,
      setup:
        'POST /x402/settle through app.fetch, stub facilitator, in-memory PGlite with and without prepared statements, alternating rounds',
      summary: {
        cpuPerOpRatioUnpreparedToPrepared: round(cpu('unprepared') / Math.max(0.01, cpu('prepared'))),
        loadAverage: { start: loadAtStart, end: loadavg().map(round) },
      },
      results,
    }
    await writeFile(join(here, 'results', 'pglite-prepared.json'), `${JSON.stringify(body, null, 2)}\n`)
    console.log(JSON.stringify(body.summary))
  } finally {
    for (const side of sides) {
      await side.close()
    }
    real.close()
    await devnet.stop()
  }
}

/** The merchant API on its own in-memory PGlite, behind a stub facilitator that settles at once. */
async function startSide(
  name: string,
  preparedStatements: number,
  networks: NonNullable<NonNullable<Parameters<typeof createRails>[1]>['networks']>,
  facilitator: FacilitatorClient,
  payer: string,
) {
  const pglite = new PGlite({ parsers: { [types.INT8]: (value: string) => value } })
  const plain = new Kysely<Database>({ dialect: createPgliteDialect(pglite, { preparedStatements }) })
  await migrateToLatest(plain as Kysely<unknown>)
  const db = { ms: 0, statements: 0 }
  const started = new Map<unknown, number>()
  const timed = plain.withPlugin({
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
  const base = {
    db: timed,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const deps = { ...base, rails: createRails(base, { networks }), settings: createDefaultSettings() }
  const merchant = await createMerchant(deps, { name: 'Bench merchant' })
  const { key } = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
  const stub: FacilitatorClient = {
    verify: async () => ({ isValid: true }),
    settle: async (request) => ({
      success: true,
      transaction: `0x${randomBytes(32).toString('hex')}`,
      network: request.paymentRequirements.network,
      payer,
    }),
    getSupported: () => facilitator.getSupported(),
  }
  const app = createApp(deps, {
    facilitator: stub,
    rateLimiter: createRateLimiter({ limit: 1_000_000, windowMs: 60_000 }),
  })
  const post = (path: string, body: string) =>
    app.fetch(
      new Request(`http://bench/api/v1/x402/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body,
      }),
    )
  return {
    name,
    db,
    requirements: async () => {
      const res = await post(
        'requirements',
        JSON.stringify({ chain: 'base', asset: 'USDC', amount: '0.01', x402Version: 2 }),
      )
      return ((await res.json()) as { data: { accepts: PaymentRequirements[] } }).data.accepts[0]
    },
    settle: async (body: string) => {
      const res = await post('settle', body)
      if (res.status !== 201) {
        throw new Error(`${name}: settle answered ${res.status}: ${await res.text()}`)
      }
    },
    close: () => plain.destroy(),
  }
}

await main()
