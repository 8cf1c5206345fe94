// The service of bench/payments.ts in its own process, as users run it (`npm start`, `tollgate serve`):
// the app with the session tests' rails (real registry, HD deposit addresses and screening, fixed
// FX table) over PostgreSQL (a private schema, dropped on close) or PGlite. Forked by the benchmark,
// driven over IPC:
//   ← { ready: { url, key } } once listening
//   → 'stats'          ← { stats: { cpuMicros, statements, pid } }  (CPU used and statements run so far)
//   → 'profile-start'  starts a CPU profile (inspector); → { profileStop: file } writes it, ← 'profiled'
//   → 'analyze'        ← 'analyzed' once the tables' planner statistics are gathered (ANALYZE)
//   → 'close'          closes the server and the database, drops the schema, exits.
// Statements are counted as the database sees them (BEGIN and COMMIT included).
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import {
  createApiKey,
  createApp,
  createDefaultSettings,
  createIdGenerator,
  createLogger,
  createMerchant,
  createRateLimiter,
  openDatabase,
  systemClock,
} from '@tollgate/service'
import { createFakeSessionRails } from '@tollgate/service/testing'
import { sql } from 'kysely'
import pg from 'pg'

const postgresUrl = process.env.BENCH_SERVER_DATABASE_URL || undefined
const poolSize = Number(process.env.BENCH_SERVER_POOL_SIZE ?? 10)
// Deposit-address indexes reserved per counter update (the rails' default when unset; 1 for the
// A/B against each allocation updating the counter in its transaction).
const indexBlock = process.env.BENCH_PAYMENTS_INDEX_BLOCK
// Data statements kept prepared per connection (the database's default of 100 when unset; 0 for the
// A/B against unnamed statements, parsed and planned on every call).
const preparedStatements = process.env.BENCH_PREPARED_STATEMENTS
const send = (message: unknown) => process.send?.(message)

const schema = `svc_bench_${randomBytes(4).toString('hex')}`
let statements = 0
const opened = await openDatabase({
  ...(postgresUrl ? { databaseUrl: postgresUrl, schema, poolSize } : {}),
  ...(preparedStatements ? { preparedStatements: Number(preparedStatements) } : {}),
  onQuery: () => {
    statements++
  },
})
const base = {
  db: opened.db,
  clock: systemClock,
  ids: createIdGenerator(),
  logger: createLogger({ level: 'silent' }),
}
const rails = createFakeSessionRails(base, indexBlock ? { addressIndexBlockSize: Number(indexBlock) } : {})
const deps = { ...base, rails, settings: createDefaultSettings() }
const merchant = await createMerchant(deps, { name: 'Bench merchant' })
const { key } = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((resolve) => server.once('listening', resolve))

let profiler: Session | undefined
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) =>
    profiler?.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  )

async function close() {
  server.close()
  await opened.close()
  if (postgresUrl) {
    const client = new pg.Client({ connectionString: postgresUrl })
    await client.connect()
    await client.query(`drop schema if exists ${schema} cascade`)
    await client.end()
  }
  process.exit(0)
}

// The benchmark died without saying 'close': clean up anyway rather than linger.
process.once('disconnect', () => void close())

process.on('message', async (message: unknown) => {
  if (message === 'stats') {
    const cpu = process.cpuUsage()
    send({ stats: { cpuMicros: cpu.user + cpu.system, statements, pid: process.pid } })
  } else if (message === 'profile-start') {
    profiler = new Session()
    profiler.connect()
    await post('Profiler.enable')
    await post('Profiler.setSamplingInterval', { interval: 200 })
    await post('Profiler.start')
    send('profiling')
  } else if (typeof message === 'object' && message !== null && 'profileStop' in message) {
    const { profile } = (await post('Profiler.stop')) as { profile: object }
    await writeFile(String(message.profileStop), JSON.stringify(profile))
    profiler?.disconnect()
    send('profiled')
  } else if (message === 'analyze') {
    await sql`analyze`.execute(opened.db)
    send('analyzed')
  } else if (message === 'close') {
    process.removeAllListeners('disconnect')
    await close()
  }
})

const port = (server.address() as AddressInfo).port
send({ ready: { url: `http://127.0.0.1:${port}/api/v1`, key } })
