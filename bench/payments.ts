// Payment sessions over HTTP: POST /api/v1/payments (asset, chain and customer given, so each
// request also upserts the customer, allocates the address, locks the rate and queues the expiry
// job) and GET /api/v1/payments/reference/{reference}, p50/p99 at 32 concurrent clients, every
// request with its own input (distinct amounts, customers, references; nothing is replayed).
// The service runs in its own process (bench/lib/payments-server.ts, as `npm start` runs it) so the
// load generator here does not share its event loop. On PostgreSQL (BENCH_DATABASE_URL, else
// TEST_DATABASE_URL; a private schema dropped afterwards), else PGlite. The rails are the session
// tests' (the real registry, HD deposit addresses and screening, with the fixed FX table); no chain
// node is involved. Targets: p50 <= 15 ms, p99 <= 60 ms. Per phase it also reports where the CPU
// went, per request: the service process, its PostgreSQL backends (/proc, Linux) and this client,
// and the statements the service ran. BENCH_CPU_PROFILE=prefix writes prefix-create.cpuprofile and
// prefix-read.cpuprofile (the service's measured windows). BENCH_PAYMENTS_POOL sets the pool size
// (default 40, one per client plus 8); BENCH_PAYMENTS_INDEX_BLOCK the deposit-address indexes reserved
// per counter update (default the rails' 64; 1 for the A/B); BENCH_PREPARED_STATEMENTS the data
// statements the service keeps prepared per connection (default 100; 0 for unnamed statements, the
// A/B). Writes bench/results/payments.json.
// The load is sent with undici's Pool.request, not fetch: fetch's WHATWG layers cost the client about
// 1 CPU ms per POST on the same two cores as the service (a measurement change, not a service one).
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { Pool } from 'undici'
import { round, runClosedLoop, summarize } from './lib/stats.js'

const here = dirname(fileURLToPath(import.meta.url))
const concurrency = 32
const creates = Number(process.env.BENCH_PAYMENTS_CREATES ?? 3000)
const reads = Number(process.env.BENCH_PAYMENTS_READS ?? 6000)
const poolSize = Number(process.env.BENCH_PAYMENTS_POOL ?? concurrency + 8)
const profilePrefix = process.env.BENCH_CPU_PROFILE
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
// The service's connections carry this name so their backends' CPU can be read from /proc.
const applicationName = `tollgate_bench_payments_${randomBytes(3).toString('hex')}`

type Stats = { cpuMicros: number; statements: number; pid: number }

async function startServer() {
  const databaseUrl = postgresUrl ? withApplicationName(postgresUrl, applicationName) : ''
  const child = fork(join(here, 'lib', 'payments-server.ts'), [], {
    execArgv: ['--conditions=tollgate-source', '--import', 'tsx'],
    env: { ...process.env, BENCH_SERVER_DATABASE_URL: databaseUrl, BENCH_SERVER_POOL_SIZE: String(poolSize) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`))),
  )
  const ask = <T>(message: unknown, pick: (m: unknown) => T | undefined): Promise<T> =>
    Promise.race([
      exited,
      new Promise<T>((resolve) => {
        const listener = (m: unknown) => {
          const value = pick(m)
          if (value !== undefined) {
            child.off('message', listener)
            resolve(value)
          }
        }
        child.on('message', listener)
        if (message !== undefined) {
          child.send(message as string)
        }
      }),
    ])
  const ready = await ask(undefined, (m) => (m as { ready?: { url: string; key: string } }).ready)
  return {
    ...ready,
    stats: () => ask('stats', (m) => (m as { stats?: Stats }).stats),
    analyze: () => ask('analyze', (m) => (m === 'analyzed' ? true : undefined)),
    profileStart: () => ask('profile-start', (m) => (m === 'profiling' ? true : undefined)),
    profileStop: (file: string) => ask({ profileStop: file }, (m) => (m === 'profiled' ? true : undefined)),
    close: async () => {
      child.send('close')
      await exited.catch(() => undefined)
    },
  }
}

function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('application_name', name)
  return parsed.toString()
}

// CPU milliseconds a process has used (utime + stime from /proc; Linux only, else 0).
async function processCpuMs(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return 0
  }
}

// CPU of the service's PostgreSQL backends (by application_name), per pid. Shared background
// processes (WAL writer, checkpointer) are not included.
async function backendCpu(admin: pg.Client | undefined): Promise<Map<number, number>> {
  const cpu = new Map<number, number>()
  if (!admin) {
    return cpu
  }
  const { rows } = await admin.query<{ pid: number }>(
    'select pid from pg_stat_activity where application_name = $1',
    [applicationName],
  )
  for (const { pid } of rows) {
    cpu.set(pid, await processCpuMs(pid))
  }
  return cpu
}

async function main() {
  const server = await startServer()
  const admin = postgresUrl ? new pg.Client({ connectionString: postgresUrl }) : undefined
  await admin?.connect()
  const { origin, pathname: apiPath } = new URL(server.url)
  const dispatcher = new Pool(origin, { connections: concurrency, keepAliveTimeout: 30_000 })
  const headers = { 'x-api-key': server.key, 'content-type': 'application/json' }
  const references: string[] = []
  let failures = 0
  const create = async (i: number) => {
    const res = await dispatcher.request({
      path: `${apiPath}/payments`,
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: `Order ${i}`,
        amount: `${10 + (i % 990)}.${String(i % 100).padStart(2, '0')}`,
        currency: 'USD',
        asset: 'USDC',
        chain: i % 2 === 0 ? 'base' : 'solana',
        customer: { email: `payer-${i}@example.com` },
        metadata: { orderId: `bench-${i}` },
      }),
    })
    const body = (await res.body.json()) as { data?: { reference?: string; payment?: { address?: string } } }
    if (res.statusCode !== 200 || !body.data?.payment?.address || !body.data.reference) {
      failures += 1
      return
    }
    references.push(body.data.reference)
  }
  const read = async (reference: string) => {
    const res = await dispatcher.request({
      path: `${apiPath}/payments/reference/${reference}`,
      method: 'GET',
      headers,
    })
    const text = await res.body.text()
    if (res.statusCode !== 200 || !text.includes(reference)) {
      failures += 1
    }
  }
  // One measured phase: latencies, throughput, and CPU and statements per request.
  const phase = async <T>(
    name: string,
    inputs: readonly T[],
    clients: number,
    op: (input: T) => Promise<void>,
  ) => {
    if (profilePrefix && clients === concurrency) {
      await server.profileStart()
    }
    const server0 = await server.stats()
    const backends0 = await backendCpu(admin)
    const client0 = process.cpuUsage()
    const run = await runClosedLoop(inputs, clients, op)
    const client = process.cpuUsage(client0)
    const server1 = await server.stats()
    const backends1 = await backendCpu(admin)
    if (profilePrefix && clients === concurrency) {
      await server.profileStop(`${profilePrefix}-${name}.cpuprofile`)
    }
    let postgresMs = 0
    for (const [pid, ms] of backends1) {
      postgresMs += ms - (backends0.get(pid) ?? 0)
    }
    const n = inputs.length
    return {
      requests: n,
      requestsPerSecond: round(n / run.seconds),
      latencyMs: summarize(run.latenciesMs),
      perRequest: {
        statements: round((server1.statements - server0.statements) / n),
        serverCpuMs: round((server1.cpuMicros - server0.cpuMicros) / 1000 / n),
        postgresCpuMs: admin ? round(postgresMs / n) : null,
        clientCpuMs: round((client.user + client.system) / 1000 / n),
      },
    }
  }
  try {
    const loadAtStart = loadavg().map(round)
    // Warm-up: JIT, prepared plans, connection pool.
    await runClosedLoop(range(200, creates), concurrency, create)
    // A live database has planner statistics (autovacuum analyzes a table after 10% of it changed);
    // the private schema's fresh tables have none for the minute this runs, and without them the
    // planner reads GET by reference through the merchant's list index, every session of the one
    // merchant (docs/sessions.md "Benchmark"). BENCH_PAYMENTS_ANALYZE=0 skips it.
    if (process.env.BENCH_PAYMENTS_ANALYZE !== '0') {
      await server.analyze()
    }
    const createRun = await phase('create', range(creates, 0), concurrency, create)
    const readInputs = range(reads, 0).map((i) => references[(i * 7919) % references.length] as string)
    const readRun = await phase('read', readInputs, concurrency, read)
    // One client: the service time of a request without queueing, to read the c32 numbers against.
    const soloCreate = await phase('solo-create', range(300, creates + 200), 1, create)
    const soloRead = await phase('solo-read', readInputs.slice(0, 600), 1, read)
    const result = {
      benchmark: 'payments',
      date: new Date().toISOString(),
      node: process.version,
      database: postgresUrl ? 'postgres' : 'pglite (set BENCH_DATABASE_URL for PostgreSQL)',
      service: 'own process (bench/lib/payments-server.ts)',
      concurrency,
      poolSize,
      addressIndexBlock: process.env.BENCH_PAYMENTS_INDEX_BLOCK ?? 'default',
      preparedStatements: process.env.BENCH_PREPARED_STATEMENTS ?? 'default',
      analyzed: process.env.BENCH_PAYMENTS_ANALYZE !== '0',
      failures,
      targetsMs: { p50: 15, p99: 60 },
      createSession: createRun,
      getSessionByReference: readRun,
      oneClient: { createSession: soloCreate, getSessionByReference: soloRead },
      loadAverage: { start: loadAtStart, end: loadavg().map(round) },
    }
    console.log(JSON.stringify(result, null, 2))
    await writeFile(join(here, 'results', 'payments.json'), `${JSON.stringify(result, null, 2)}\n`)
    if (failures > 0) {
      throw new Error(`${failures} requests failed`)
    }
  } finally {
    await dispatcher.close()
    await admin?.end()
    await server.close()
  }
}

function range(count: number, offset: number): number[] {
  return Array.from({ length: count }, (_, i) => i + offset)
}

await main()
