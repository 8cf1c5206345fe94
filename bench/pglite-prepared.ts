import { writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, types } from '@electric-sql/pglite'
import type { FacilitatorClient, PaymentRequirements } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import { createMemorySettlementStore, createPgliteDialect } from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import { type createRails, type Database, migrateToLatest } from '@tollgate/service'
import { Kysely } from 'kysely'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { round, summarize } from './lib/stats.js'
import { startStubX402Merchant } from './lib/stub-x402-merchant.js'

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
  const merchant = await startStubX402Merchant({ db: timed, networks, facilitator, payer })
  return {
    name,
    db,
    requirements: merchant.requirements,
    settle: async (body: string) => {
      const res = await merchant.post('settle', body)
      if (res.status !== 201) {
        throw new Error(`${name}: settle answered ${res.status}: ${await res.text()}`)
      }
    },
    close: () => plain.destroy(),
  }
}

await main()
